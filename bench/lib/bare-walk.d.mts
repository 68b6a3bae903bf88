// Types for bare-walk.mjs (plain JavaScript, so its whole-process run strips no types).
export declare function bareWalk(root: string, keep: (name: string) => boolean, stat?: boolean): string[];
