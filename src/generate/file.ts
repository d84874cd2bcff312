// One file the generators write: where it goes and what it holds. A leaf, so every generator can
// return it without importing the others.
export interface GeneratedFile {
  /** Path relative to the repository root, with forward slashes. */
  readonly path: string;
  readonly content: string;
}
