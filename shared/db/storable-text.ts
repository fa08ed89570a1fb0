/**
 * Text the database would store as something else. A lone UTF-16 surrogate (half of a pair, as
 * a client's JSON `"\ud800"` gives) has no UTF-8 form: the driver writes it as U+FFFD, so two
 * different values would read back as one (two owners as the same tenant). With the `u` flag,
 * `\p{Cs}` matches only a surrogate that is not part of a pair.
 */
export const LONE_SURROGATE = /\p{Cs}/u;

/** Whether `text` is stored exactly as given (as far as its characters go). */
export const isStoredAsGiven = (text: string): boolean => !LONE_SURROGATE.test(text);
