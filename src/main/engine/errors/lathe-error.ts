const marker = Symbol.for("lathe.error");

/**
 * Base of every typed error Lathe throws. `isInstance` works across copies of the module
 * (bundled main process, tests, CLI) because it checks a global symbol, not the prototype chain.
 */
export class LatheError extends Error {
  readonly [marker] = true;
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  static isInstance(value: unknown): value is LatheError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
