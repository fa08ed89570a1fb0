/** Types of json-option.js (plain JavaScript, read by bin.js before any TypeScript). */
export declare function jsonRequested(argv: readonly string[]): boolean;
