/**
 * One line of transient status on a terminal (a spinner while retrying): rewritten in place,
 * cleared when the command ends. Without a terminal it writes nothing.
 */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export class StatusLine {
  private frame = 0;
  private open = false;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    private readonly tty: boolean,
  ) {}

  update(text: string): void {
    if (!this.tty) return;
    this.stream.write(`\r\x1b[2K${FRAMES[this.frame++ % FRAMES.length]} ${text}`);
    this.open = true;
  }

  clear(): void {
    if (!this.open) return;
    this.stream.write('\r\x1b[2K');
    this.open = false;
  }
}
