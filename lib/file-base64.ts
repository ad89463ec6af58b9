/** A file's bytes as base64, for the JSON upload endpoints (logos, profile images). */
export async function fileBase64(file: Blob): Promise<string> {
  return btoa(Array.from(new Uint8Array(await file.arrayBuffer()), (b) => String.fromCharCode(b)).join(''));
}

/** What the upload endpoints take: PNG, JPEG, WebP or SVG up to 512 KiB. */
export const IMAGE_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'];
export const IMAGE_UPLOAD_MAX_BYTES = 512 * 1024;
