import exifr from 'exifr';

const EXIF_DATE = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

/**
 * When the picture was taken, from its EXIF DateTimeOriginal (epoch ms), or null when the file
 * has none or it is unreadable. EXIF stores a wall-clock time without a zone: the zone comes
 * from OffsetTimeOriginal (EXIF 2.31) when present. NOTE: without it we treat the time as UTC,
 * because nothing else in the upload says where the camera's clock was set; clients that know
 * better send `time` in the form, which always wins.
 */
export async function exifTakenAt(file: string | Buffer): Promise<number | null> {
  let tags: Record<string, unknown> | undefined;
  try {
    // reviveValues: false keeps the raw strings: exifr would otherwise read them in the
    // server's local zone.
    tags = await exifr.parse(file, { pick: ['DateTimeOriginal', 'OffsetTimeOriginal', 'SubSecTimeOriginal'], reviveValues: false });
  } catch {
    return null;
  }
  return exifTimeFromTags(tags);
}

/** The pure part: tag strings → epoch ms. */
export function exifTimeFromTags(tags: Record<string, unknown> | undefined | null): number | null {
  const raw = tags?.DateTimeOriginal;
  if (typeof raw !== 'string') return null;
  const match = EXIF_DATE.exec(raw.trim().replace(/\0+$/, ''));
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  let millis = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(millis).getUTCDate() !== day) return null;
  const subSeconds = typeof tags?.SubSecTimeOriginal === 'string' ? /^\d+/.exec(tags.SubSecTimeOriginal.trim())?.[0] : undefined;
  if (subSeconds) millis += Math.floor(Number(`0.${subSeconds}`) * 1000);
  const offset = typeof tags?.OffsetTimeOriginal === 'string' ? OFFSET.exec(tags.OffsetTimeOriginal.trim().replace(/\0+$/, '')) : null;
  if (offset) {
    const minutes = Number(offset[2]) * 60 + Number(offset[3]);
    millis -= (offset[1] === '-' ? -1 : 1) * minutes * 60_000;
  }
  return millis;
}
