/**
 * The content type of stored bytes, decided from their leading bytes (never from the client's
 * file name or header). Covers the images camera traps and field devices send and the common
 * document, audio and video formats patrol files carry; anything else is
 * application/octet-stream. SNIFF_BYTES of the head are enough for every signature here.
 */
export const SNIFF_BYTES = 64;

interface Signature {
  type: string;
  offset?: number;
  bytes: number[] | string;
}

const SIGNATURES: Signature[] = [
  { type: 'image/jpeg', bytes: [0xff, 0xd8, 0xff] },
  { type: 'image/png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'image/gif', bytes: 'GIF87a' },
  { type: 'image/gif', bytes: 'GIF89a' },
  { type: 'image/tiff', bytes: [0x49, 0x49, 0x2a, 0x00] },
  { type: 'image/tiff', bytes: [0x4d, 0x4d, 0x00, 0x2a] },
  { type: 'image/bmp', bytes: 'BM' },
  { type: 'application/pdf', bytes: '%PDF-' },
  { type: 'application/zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { type: 'application/gzip', bytes: [0x1f, 0x8b] },
  { type: 'audio/mpeg', bytes: 'ID3' },
  { type: 'audio/ogg', bytes: 'OggS' },
  { type: 'audio/flac', bytes: 'fLaC' },
];

/** RIFF containers and ISO-BMFF brands, told apart by a second field. */
const RIFF_TYPES: Record<string, string> = { WEBP: 'image/webp', WAVE: 'audio/wav', 'AVI ': 'video/x-msvideo' };
const BMFF_BRANDS: Record<string, string> = {
  heic: 'image/heic', heix: 'image/heic', mif1: 'image/heif', msf1: 'image/heif', avif: 'image/avif',
  isom: 'video/mp4', iso2: 'video/mp4', mp41: 'video/mp4', mp42: 'video/mp4', avc1: 'video/mp4', 'M4A ': 'audio/mp4', 'qt  ': 'video/quicktime',
};

export function sniffContentType(head: Uint8Array): string {
  const ascii = (start: number, length: number) => String.fromCharCode(...head.subarray(start, start + length));
  for (const { type, offset = 0, bytes } of SIGNATURES) {
    const expected = typeof bytes === 'string' ? [...bytes].map((c) => c.charCodeAt(0)) : bytes;
    if (head.length >= offset + expected.length && expected.every((byte, i) => head[offset + i] === byte)) return type;
  }
  if (head.length >= 12 && ascii(0, 4) === 'RIFF') return ownValue(RIFF_TYPES, ascii(8, 4)) ?? 'application/octet-stream';
  if (head.length >= 12 && ascii(4, 4) === 'ftyp') return ownValue(BMFF_BRANDS, ascii(8, 4)) ?? 'application/octet-stream';
  return 'application/octet-stream';
}

/** A table's own entry for a name read from the file (never a member of Object.prototype). */
function ownValue(table: Record<string, string>, name: string): string | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

export function isImage(contentType: string): boolean {
  return contentType.startsWith('image/');
}
