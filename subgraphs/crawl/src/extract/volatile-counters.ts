import { RE2JS } from 're2js';

/**
 * Counters a page shows about itself, which move without the page changing: how often it was
 * viewed, read, commented, liked, shared, rated, downloaded or bought, and how many are left.
 *
 * The rule (README, "Changes"): a number is volatile only when the words next to it say it counts
 * the page's audience or activity: views, reads, readers, visits, visitors, comments, replies,
 * likes, reactions, followers, subscribers, reviews and ratings (their number, not the average:
 * "4.5 out of 5" is content), downloads, items sold, people viewing or reading now, and stock left
 * ("only 3 left"); shares, votes, plays and visits only as a label ("Shares: 12"), since "bought
 * 1,000 shares" and "won 5,000 votes" are news. Every other number is content: prices, discounts,
 * percentages, sizes, quantities, scores, ranks, and counts in prose ("the factory employs 1,234
 * people"), so a price that moves from €19.99 to €24.99 changes the page.
 *
 * Spellings (English, German, French, Spanish, Portuguese, Italian, Dutch; every page is read with
 * all of them, since a counter needs its number and its word side by side): "1,234 views", "1.2K
 * views", "1.234 Aufrufe", "1 234 vues", "12 comentarios", "Views: 1,234", "Comments (12)",
 * "Kommentare (12)", "Read by 1,234 people", "1,234 people are viewing this", "lu 1 234 fois",
 * "leído 1.234 veces", "Gefällt 12 Mal", "No comments" (none counts as a number), "Only 3 left",
 * "nur noch 3", "plus que 3 en stock", "solo quedan 3", "500+ sold". A number is digits with
 * optional thousands separators (, . ' space, no-break space, narrow no-break space), an optional
 * decimal part, an optional K/M/B suffix written close ("1.2K"; after a space such a letter may start a word, and RE2's \b knows only ASCII letters) or a Mio./Mrd./Tsd. one and an optional "+".
 *
 * RE2 (re2js) runs every rule, so matching is linear in the text whatever it holds.
 */

const NUMBER = String.raw`(?:(?:\d{1,3}(?:[,.'\x{a0}\x{202f} ]\d{3})+|\d+)(?:[.,]\d+)?(?:[kmb]\b|\s?(?:mio\.?|mrd\.?|tsd\.?|mil|mln)\b)?\+?|no|none|zero|keine|kein|aucun|aucune|sin|ningún|nenhum|nessun|geen)`;

/** Counter nouns, singular and plural, per language (joined into one alternation). */
const COUNTER_WORDS = [
  // en
  String.raw`views?|page ?views?|reads?|readers?|visitors?|comments?|replies|reply|responses?|answers?|likes?|reactions?|followers?|subscribers?|upvotes?|reviews?|ratings?|downloads?|listens?|sold|bought|retweets?|reposts?|claps?|people (?:viewing|watching|reading)|watchers?`,
  // de
  String.raw`aufrufe?|ansichten|leser(?:innen)?|besuche?|besucher(?:innen)?|kommentare?|antworten|reaktionen|abonnenten|bewertungen|bewertung|rezensionen|rezension|mal gelesen|mal angesehen|mal geteilt|mal heruntergeladen|mal verkauft|verkauft`,
  // fr
  String.raw`vues?|lectures?|lecteurs?|visites?|visiteurs?|commentaires?|réponses?|j'aime|j’aime|partages?|abonnés?|avis|évaluations?|téléchargements?|vendus?|réactions?`,
  // es
  String.raw`visitas?|vistas?|visualizaciones|visualización|lecturas?|lectores?|comentarios?|respuestas?|me gusta|compartidos?|seguidores?|suscriptores?|opiniones|opinión|reseñas?|valoraciones|valoración|calificaciones|descargas?|vendidos?|reacciones`,
  // pt
  String.raw`visualizações|visualização|comentários?|curtidas?|compartilhamentos?|avaliações|avaliação`,
  // it
  String.raw`visualizzazioni|commenti|commento|mi piace|condivisioni|recensioni|recensione|venduti`,
  // nl
  String.raw`weergaven|reacties|reactie|keer bekeken|keer gelezen|beoordelingen`,
].join('|');

/**
 * Words that count something else as often as a page's audience (votes in an election, shares of
 * stock, plays in a theatre, a plan's visits): counters only as a label ("Votes: 12", "Shares (3)").
 */
const LABEL_ONLY_WORDS = String.raw`shares?|votes?|plays?|visits?|stimmen|votos?|voti|stemmen`;

/** Words that put the number after them: "Views: 1,234", "Comments (12)". */
const LABEL = String.raw`\b(?:${COUNTER_WORDS}|${LABEL_ONLY_WORDS})\s?(?::\s?|\(\s?)${NUMBER}\)?`;
/** The number before its word: "1,234 views", "12 Kommentare". */
const COUNT = String.raw`\b${NUMBER}\s(?:${COUNTER_WORDS})\b`;
/** Phrases around the number. */
const PHRASES = [
  String.raw`read by ${NUMBER} (?:people|readers|users)`,
  String.raw`(?:viewed|read|seen|watched|downloaded|played|shared) ${NUMBER} times`,
  String.raw`${NUMBER} (?:people|persons|users|customers|others) (?:are |have |has )?(?:viewing|viewed|watching|reading|read|like|liked|bought|found this helpful)`,
  String.raw`only ${NUMBER} left`,
  String.raw`${NUMBER} (?:left|remaining) in stock`,
  String.raw`gefällt ${NUMBER}(?: mal| personen)?`,
  String.raw`${NUMBER} (?:personen|leute|nutzer|kunden) (?:gefällt|gefällt das|lesen|haben)`,
  String.raw`nur noch ${NUMBER}`,
  String.raw`lu ${NUMBER} fois`,
  String.raw`vu ${NUMBER} fois`,
  String.raw`${NUMBER} personnes? (?:aiment|regardent|consultent|ont)`,
  String.raw`plus que ${NUMBER}`,
  String.raw`il (?:n'en )?reste (?:que |seulement )?${NUMBER}`,
  String.raw`(?:leído|visto) ${NUMBER} veces`,
  String.raw`${NUMBER} personas? (?:lo |la )?(?:han visto|vieron|están viendo|les gusta|le gusta)`,
  String.raw`(?:sólo|solo) (?:quedan?|queda) ${NUMBER}`,
  String.raw`últimas? ${NUMBER} unidad(?:es)?`,
  String.raw`lido ${NUMBER} vezes`,
  String.raw`letto ${NUMBER} volte`,
].join('|');

/**
 * What every counter holds: a digit or a word for none. RE2 in JavaScript costs about 0.1 ms a
 * sentence; most sentences of prose have neither and skip it (a fixed alternation of words: linear).
 */
const COUNTER_HINT = /\d|(?<![\p{L}\p{N}])(?:no|none|zero|keine|kein|aucun|aucune|sin|ningún|nenhum|nessun|geen)(?![\p{L}\p{N}])/iu;

const COUNTER = RE2JS.compile(`${LABEL}|${COUNT}|\\b(?:${PHRASES})`, RE2JS.CASE_INSENSITIVE);

/** `text` with each counter replaced by `<n>`. */
export function maskCounters(text: string): string {
  return COUNTER_HINT.test(text) ? COUNTER.matcher(text).replaceAll('<n>') : text;
}
