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

/**
 * What to list as transferred to move `bytes` to another thread: their buffer when it holds
 * exactly them, else nothing (a slice of a shared pool is copied instead, which is cheap: pools
 * hold only small buffers).
 */
export function transferList(bytes: Uint8Array): ArrayBuffer[] {
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength
    ? [buffer]
    : [];
}
