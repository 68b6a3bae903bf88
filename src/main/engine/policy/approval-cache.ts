/** Where "always" answers are kept: the session, and the project when the user turned that on. */
export interface ApprovalPersistence {
  load(): Iterable<[tool: string, key: string]>;
  save(tool: string, key: string): void;
}

/** Approved `(tool, approval key)` pairs for one session (plus the project's, when enabled). */
export class ApprovalCache {
  private readonly keys = new Set<string>();
  private readonly stores: ApprovalPersistence[];

  constructor(stores: ApprovalPersistence[] = []) {
    this.stores = stores;
    for (const store of stores) for (const [tool, key] of store.load()) this.keys.add(`${tool}\u0000${key}`);
  }

  has(tool: string, key: string): boolean {
    return this.keys.has(`${tool}\u0000${key}`);
  }

  add(tool: string, key: string): void {
    const id = `${tool}\u0000${key}`;
    if (this.keys.has(id)) return;
    this.keys.add(id);
    for (const store of this.stores) store.save(tool, key);
  }
}
