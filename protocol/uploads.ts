/**
 * The resumable uploads' wire (tus 1.0; issue 26 §6; docs/sync.md "Resumable uploads"). Shared by
 * the server and the CLI; imports nothing of ours.
 */

/** The tus endpoint: OPTIONS and POST here, HEAD/PATCH/DELETE on `<path>/<32 hex>`. */
export const UPLOADS_PATH = '/api/fieldops/v1/uploads';
/** The tus protocol version every request and answer carries (`Tus-Resumable`). */
export const TUS_VERSION = '1.0.0';
/**
 * On every answer about a stored upload: the stored bytes' sha256 (lowercase hex). The CLI
 * removes its staged copy once an attach's outcome names the same hash.
 */
export const FILE_SHA256_HEADER = 'Fieldops-File-Sha256';
/** tus's Checksum Mismatch status: the bytes do not hash to the `sha256` metadata sent. */
export const CHECKSUM_MISMATCH = 460;
