/**
 * A strict RFC 8941 (Structured Field Values for HTTP) parser for Lists and Dictionaries, the
 * two shapes of the draft-7 RateLimit fields. Written here because no structured-field package
 * is installed (`structured-headers` would replace it). Throws on anything the RFC refuses.
 */
export type BareItem = number | string | boolean | { token: string } | { bytes: string };
export type Params = Map<string, BareItem>;
export type Item = { value: BareItem; params: Params };
export type InnerList = { items: Item[]; params: Params };
export type Member = Item | InnerList;

class Parser {
  private i = 0;
  private readonly s: string;

  constructor(input: string) {
    // 4.2 step 1-2: ASCII only, leading/trailing SP discarded
    if (/[^\x20-\x7e]/.test(input)) throw new SyntaxError('non-ASCII or control character');
    this.s = input.replace(/^ +| +$/g, '');
  }

  private peek() {
    return this.s[this.i];
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at ${this.i} in ${JSON.stringify(this.s)}`);
  }

  get done() {
    return this.i >= this.s.length;
  }

  private skipSP() {
    while (this.peek() === ' ') this.i += 1;
  }

  private skipOWS() {
    while (this.peek() === ' ' || this.peek() === '\t') this.i += 1;
  }

  /** 4.2.1 / 4.2.2 member separators. */
  private separator(): boolean {
    this.skipOWS();
    if (this.done) return false;
    if (this.peek() !== ',') this.fail('expected ","');
    this.i += 1;
    this.skipOWS();
    if (this.done) this.fail('trailing comma');
    return true;
  }

  list(): Member[] {
    const members: Member[] = [];
    while (!this.done) {
      members.push(this.itemOrInnerList());
      if (!this.separator()) break;
    }
    return members;
  }

  dictionary(): Map<string, Member> {
    const dict = new Map<string, Member>();
    while (!this.done) {
      const key = this.key();
      let member: Member;
      if (this.peek() === '=') {
        this.i += 1;
        member = this.itemOrInnerList();
      } else {
        member = { value: true, params: this.params() };
      }
      dict.set(key, member);
      if (!this.separator()) break;
    }
    return dict;
  }

  private itemOrInnerList(): Member {
    return this.peek() === '(' ? this.innerList() : this.item();
  }

  private innerList(): InnerList {
    this.i += 1;
    const items: Item[] = [];
    for (;;) {
      this.skipSP();
      if (this.peek() === ')') {
        this.i += 1;
        return { items, params: this.params() };
      }
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')') this.fail('expected SP or ")"');
      if (this.done) this.fail('unterminated inner list');
    }
  }

  item(): Item {
    return { value: this.bareItem(), params: this.params() };
  }

  private params(): Params {
    const params: Params = new Map();
    while (this.peek() === ';') {
      this.i += 1;
      this.skipSP();
      const key = this.key();
      let value: BareItem = true;
      if (this.peek() === '=') {
        this.i += 1;
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  private key(): string {
    const match = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i));
    if (!match) this.fail('expected a key');
    this.i += match[0].length;
    return match[0];
  }

  private bareItem(): BareItem {
    const c = this.peek();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    if (c === '"') return this.string();
    if (c === ':') return this.bytes();
    if (c === '?') return this.boolean();
    if (c !== undefined && /[A-Za-z*]/.test(c)) return this.token();
    return this.fail('expected an item');
  }

  private number(): number {
    const match = /^-?(\d+)(\.(\d*))?/.exec(this.s.slice(this.i));
    if (!match) return this.fail('expected a number');
    const [text, whole, dot, fraction] = match;
    if (!dot && whole.length > 15) this.fail('integer too long');
    if (dot && (whole.length > 12 || !fraction || fraction.length > 3)) this.fail('bad decimal');
    this.i += text.length;
    return Number(text);
  }

  private string(): string {
    let out = '';
    this.i += 1;
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') return out;
      if (c === '\\') {
        const next = this.s[this.i++];
        if (next !== '"' && next !== '\\') this.fail('bad escape');
        out += next;
      } else {
        out += c;
      }
    }
  }

  private token(): { token: string } {
    const match = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(this.s.slice(this.i)) as RegExpExecArray;
    this.i += match[0].length;
    return { token: match[0] };
  }

  private bytes(): { bytes: string } {
    const match = /^:([A-Za-z0-9+/=]*):/.exec(this.s.slice(this.i));
    if (!match) return this.fail('bad byte sequence');
    this.i += match[0].length;
    return { bytes: match[1] };
  }

  private boolean(): boolean {
    const match = /^\?([01])/.exec(this.s.slice(this.i));
    if (!match) return this.fail('bad boolean');
    this.i += 2;
    return match[1] === '1';
  }
}

/** RFC 8941 4.2 with field type List. */
export function parseList(input: string): Member[] {
  return new Parser(input).list();
}

/** RFC 8941 4.2 with field type Dictionary. */
export function parseDictionary(input: string): Map<string, Member> {
  return new Parser(input).dictionary();
}

/** RFC 8941 4.2 with field type Item. */
export function parseItem(input: string): Item {
  const parser = new Parser(input);
  const item = parser.item();
  if (!parser.done) throw new SyntaxError(`trailing characters in ${JSON.stringify(input)}`);
  return item;
}
