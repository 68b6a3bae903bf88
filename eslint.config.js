import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["out/**", "dist/**", "node_modules/**", "test-results/**", "bench/.work/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-empty": ["error", { allowEmptyCatch: false }],
    },
  },
  {
    files: ["src/renderer/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["src/main/engine/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "electron", message: "The engine runs in plain Node: never import electron here." },
          ],
          patterns: [
            {
              group: ["**/shared/**", "**/renderer/**", "**/preload/**"],
              message: "The engine depends on nothing above it.",
            },
          ],
        },
      ],
    },
  },
  {
    // A write transaction that reads first fails at once with "database is locked" when another
    // process writes: every transaction begins IMMEDIATE, through store/database.ts.
    files: ["src/main/engine/**/*.ts"],
    ignores: ["src/main/engine/store/database.ts", "src/main/engine/**/*.test.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message:
            "Open a transaction with writeTransaction(db, body) from store/database.ts: it begins IMMEDIATE and so waits out another process's lock.",
        },
      ],
    },
  },
  {
    // Hosts reach the engine through its doors only: index.ts (the engine), agent/index.ts (the
    // agent, loaded only where a model runs) and light.ts (what a host needs while it starts).
    // Static imports and re-exports, and `import()` (which no-restricted-imports does not see).
    files: ["src/main/{cli,api,electron,serve,secrets}/**/*.ts"],
    ignores: ["src/main/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)engine/(?!(index|light)\\.ts$|agent/index\\.ts$)",
              message:
                "Hosts import the engine through src/main/engine/index.ts, agent/index.ts or light.ts only: export what you need from there.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          // The same expression (an esquery regex cannot hold a slash: \x2F is one).
          selector:
            "ImportExpression[source.value=/(^|\\x2F)engine\\x2F(?!(index|light)\\.ts$|agent\\x2Findex\\.ts$)/]",
          message:
            "Hosts import the engine through src/main/engine/index.ts, agent/index.ts or light.ts only: export what you need from there.",
        },
      ],
    },
  },
  {
    // The call vocabulary (plans, decisions, the runtime and its session) lives in tools/: the
    // policy and the session build on it, never the other way round.
    files: ["src/main/engine/tools/**/*.ts"],
    ignores: ["src/main/engine/tools/**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "electron", message: "The engine runs in plain Node: never import electron here." },
          ],
          patterns: [
            {
              group: ["**/shared/**", "**/renderer/**", "**/preload/**"],
              message: "The engine depends on nothing above it.",
            },
            {
              group: ["../policy/**", "../session/**"],
              message:
                "tools/ is below the policy and the session: move the shared type into tools/ instead.",
            },
          ],
        },
      ],
    },
  },
);
