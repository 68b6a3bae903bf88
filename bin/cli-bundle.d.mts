// Types for cli-bundle.mjs (plain JavaScript, so the launcher strips no types to use it).
export declare const PACKAGE_ROOT: string;
export declare const BUNDLE_DIR: string;
export declare const BUNDLE_ENTRY: string;
export declare const SOURCE_ENTRY: string;
export type BundleState = { state: "fresh" } | { state: "missing" } | { state: "stale"; changed: string };
export declare function bundleState(root?: string, dir?: string): BundleState;
export declare function chooseEntry(env?: NodeJS.ProcessEnv): { entry: string; notice?: string };
