// The order of text sort values: case- and accent-insensitive, as a database's default collation orders
// names ("Élodie" beside "Elena"): Intl.Collator('en', { sensitivity: 'base' }), built once. A call to the
// collator costs a trip into ICU, so a listing ranks its distinct texts once and sorts by rank. Most names
// need no collator at all: a text of ASCII letters, digits and spaces, once its accents are taken off (NFD,
// then the combining marks U+0300-U+0362 removed), compares as its lower-cased form does, by code unit.
// That is the collator's own order for such texts, and it is checked against the collator when this
// module loads: an ICU that disagreed would turn the shortcut off. Any other text (punctuation, other
// scripts, ß, ø, æ...) is compared by the collator itself, so the ranks are always the collator's order.
// Pure.

const collator = new Intl.Collator('en', { sensitivity: 'base' });

export const compareText = (a: string, b: string): number => collator.compare(a, b);

const PLAIN = /^[A-Za-z0-9 ]*$/;
/** Combining marks the collator ignores at base strength (U+0363-U+036F are letters to it, not accents). */
const ACCENTS = /[\u0300-\u0362]/g;

/** Whether the collator orders plain texts by code unit once lower-cased: space, digits, then letters,
 * each capital equal to its small letter. */
function plainOrderHolds(): boolean {
  const order = ' 0123456789abcdefghijklmnopqrstuvwxyz';
  for (let i = 1; i < order.length; i++) {
    const [a, b] = [order[i - 1]!, order[i]!];
    if (compareText(a, b) >= 0 || compareText(b, b.toUpperCase()) !== 0) return false;
  }
  return true;
}

/** Whether the collator ignores every accent mark that the shortcut takes off. */
function accentsIgnored(): boolean {
  for (let mark = 0x300; mark <= 0x362; mark++) {
    if (compareText(`a${String.fromCharCode(mark)}b`, 'ab') !== 0) return false;
  }
  return true;
}

const PLAIN_SHORTCUT = plainOrderHolds();
const ACCENT_SHORTCUT = PLAIN_SHORTCUT && accentsIgnored();

/** The text's key for a code-unit comparison that gives the collator's order; undefined when it has none. */
export function collationKey(text: string): string | undefined {
  if (!PLAIN_SHORTCUT) return undefined;
  if (PLAIN.test(text)) return text.toLowerCase();
  if (!ACCENT_SHORTCUT) return undefined;
  const bare = text.normalize('NFD').replace(ACCENTS, '');
  return PLAIN.test(bare) ? bare.toLowerCase() : undefined;
}

/**
 * Each distinct text's rank in the collator's order, from 0: texts the collator finds equal ("Maria",
 * "maria", "María") share a rank. Texts with a key are sorted by key (no collator call); the others by the
 * collator; the two lists are merged by the collator.
 */
export function collationRanks(texts: Iterable<string>): Map<string, number> {
  const keyOf = new Map<string, string>();
  /** One text for each key: all texts of a key are equal to the collator. */
  const textOfKey = new Map<string, string>();
  const others: string[] = [];
  for (const text of texts) {
    const key = collationKey(text);
    if (key === undefined) {
      others.push(text);
      continue;
    }
    keyOf.set(text, key);
    if (!textOfKey.has(key)) textOfKey.set(key, text);
  }
  const keys = [...textOfKey.keys()].sort();
  others.sort(compareText);
  const ranks = new Map<string, number>();
  let rank = -1;
  let previous: string | undefined;
  let previousKeyed = false;
  for (let i = 0, j = 0; i < keys.length || j < others.length; ) {
    const keyed = j >= others.length || (i < keys.length && compareText(textOfKey.get(keys[i]!)!, others[j]!) <= 0);
    const text = keyed ? textOfKey.get(keys[i++]!)! : others[j++]!;
    // Two distinct keys are never equal; any other pair is asked of the collator.
    if (previous === undefined || (previousKeyed && keyed) || compareText(previous, text) !== 0) rank++;
    ranks.set(text, rank);
    previous = text;
    previousKeyed = keyed;
  }
  for (const [text, key] of keyOf) ranks.set(text, ranks.get(textOfKey.get(key)!)!);
  return ranks;
}
