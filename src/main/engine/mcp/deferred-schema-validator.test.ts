import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation";
import { describe, expect, it } from "vitest";
import { deferredSchemaValidator } from "./deferred-schema-validator.ts";

const schema: JsonSchemaType = {
  type: "object",
  properties: { count: { type: "integer" } },
  required: ["count"],
};

/** The SDK's own validator, counting the schemas it is asked to compile. */
function counting(): { make: () => AjvJsonSchemaValidator; compiles: () => number; made: () => number } {
  let made = 0;
  let compiles = 0;
  return {
    make: () => {
      made++;
      const real = new AjvJsonSchemaValidator();
      const getValidator = real.getValidator.bind(real);
      real.getValidator = (s) => {
        compiles++;
        return getValidator(s);
      };
      return real;
    },
    compiles: () => compiles,
    made: () => made,
  };
}

describe("deferredSchemaValidator", () => {
  it("compiles nothing when the SDK's client caches a validator per listed tool", () => {
    const c = counting();
    const validator = deferredSchemaValidator(c.make);
    for (let i = 0; i < 20; i++) validator.getValidator({ ...schema });
    expect(c.made()).toBe(0);
    expect(c.compiles()).toBe(0);
  });

  it("checks as the SDK's validator does once used, compiling each schema once", () => {
    const c = counting();
    const check = deferredSchemaValidator(c.make).getValidator<{ count: number }>(schema);
    expect(check({ count: 3 })).toEqual({ valid: true, data: { count: 3 }, errorMessage: undefined });
    const wrong = check({ count: "three" });
    expect(wrong.valid).toBe(false);
    expect(wrong.errorMessage).toMatch(/integer/);
    expect(check({})).toMatchObject({ valid: false });
    expect(c.made()).toBe(1);
    expect(c.compiles()).toBe(1);
  });
});
