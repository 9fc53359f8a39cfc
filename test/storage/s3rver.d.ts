// Just what the tests use of s3rver (it ships no types).
declare module 's3rver' {
  export default class S3rver {
    constructor(options: { port?: number; address?: string; directory: string; silent?: boolean });
    run(): Promise<{ port: number; address: string }>;
    close(): Promise<void>;
  }
}
