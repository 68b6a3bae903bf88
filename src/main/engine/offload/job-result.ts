/**
 * A job's result together with the buffers in it that should move to the main thread rather
 * than be copied (a file's new bytes, say). Jobs return one from a worker; the pool hands the
 * caller `value` alone.
 */
export class WithTransfer<T> {
  readonly value: T;
  readonly transfer: readonly ArrayBuffer[];

  constructor(value: T, transfer: readonly ArrayBuffer[]) {
    this.value = value;
    this.transfer = transfer;
  }
}

/** The buffer behind `bytes` when handing it over moves exactly these bytes; else a copy's. */
export function ownBuffer(bytes: Uint8Array): { bytes: Uint8Array; buffer: ArrayBuffer } {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) {
    return { bytes, buffer };
  }
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return { bytes: copy, buffer: copy.buffer };
}
