/**
 * The result of a `runtime` request already encoded as JSON (on an offload worker), which the
 * isolate host splices into its reply as is instead of encoding the value again on the main
 * thread. `json` must be what JSON.stringify gives for the value.
 */
export class EncodedJson {
  readonly json: string;

  constructor(json: string) {
    this.json = json;
  }
}

/**
 * Like EncodedJson, as ASCII bytes (every other character escaped as \uXXXX): a result the
 * isolate host hands to the isolate as bytes, so it never becomes a string, or garbage, on the
 * main thread's heap. The isolate decodes it (see isolate-bootstrap.ts).
 */
export class AsciiJson {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}
