/**
 * Text from a server (type names, choice labels, messages) printed as text: control characters
 * and escape sequences are removed, so a catalog entry cannot move the cursor, retitle the
 * terminal or hide lines. JSON output needs none of this (JSON.stringify escapes them).
 */
// C0 controls except tab, DEL, and C1 controls (0x80-0x9f, which some terminals read as CSI).
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

export function safeText(value: unknown): string {
  return String(value ?? '').replace(CONTROLS, '');
}
