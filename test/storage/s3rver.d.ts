// Just what the tests use of s3rver (it ships no types).
declare module 's3rver' {
  export default class S3rver {
    constructor(options: { port?: number; address?: string; directory: string; silent?: boolean });
    run(): Promise<{ port: number; address: string }>;
    close(): Promise<void>;
    /** S3 event notifications: `Records[0].eventName` is e.g. `ObjectCreated:Put`. */
    on(event: 'event', listener: (event: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => void): this;
    off(event: 'event', listener: (...args: never[]) => void): this;
  }
}
