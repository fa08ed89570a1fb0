/** Types of node-version.js (plain JavaScript, read by an older Node before any TypeScript). */
export declare const NODE_MAJOR: number;
export declare function nodeVersionProblem(version: string): string | null;
