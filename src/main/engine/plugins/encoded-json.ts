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
