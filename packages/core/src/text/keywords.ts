/**
 * Plain keyword matching shared by everything that matches words without a model: the offline
 * model's routing and tool search. Lowercase words, stop-words removed, a crude stemmer so that
 * "refunds"/"refund" and "booting"/"boot" meet.
 */

// Words that say nothing about *which* specialist is wanted ("I need help with a problem").
const STOP_WORDS = new Set(
  (
    "a about again all also am an and any are as at be been being but by can cant could did didnt do does " +
    "doesnt dont for from get got had has have having he her here hers him his how i if im in into is isnt " +
    "it its ive just me my myself need needs no not now of off on once only or our ours out over please " +
    "should so some than thank thanks that the their them then there these they this those to too up us " +
    "very want wants was wasnt we were what when where which while who why will with wont would you your " +
    "yours hi hello hey help problem problems issue issues question questions thing something someone anything"
  ).split(" "),
);

/** Strips the commonest English endings; only when at least three letters remain. */
export function stem(word: string): string {
  let stemmed = word;
  if (stemmed.endsWith("ies") && stemmed.length > 5) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith("ing") && stemmed.length > 5) stemmed = stemmed.slice(0, -3);
  else if (stemmed.endsWith("ed") && stemmed.length > 4) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith("s") && !stemmed.endsWith("ss") && stemmed.length > 3)
    stemmed = stemmed.slice(0, -1);
  // "invoice"/"invoic(es)" and "schedule"/"schedul(ing)" only meet once a final "e" is dropped too.
  if (stemmed.endsWith("e") && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** Distinct stems of the content words of `text`, in first-seen order. */
export function contentStems(text: string): string[] {
  const words = text
    .toLowerCase()
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
  return [...new Set(words.map(stem))];
}

/** How many distinct content words of `query` appear in `text`. */
export function keywordOverlap(query: string, text: string): number {
  const textStems = new Set(contentStems(text));
  return contentStems(query).filter((word) => textStems.has(word)).length;
}
