/**
 * AMQP topic matching, so the in-process transport routes exactly as a RabbitMQ
 * topic exchange would: words are dot-separated, `*` is one word, `#` is zero or more.
 */
export function topicMatches(pattern: string, topic: string): boolean {
  return match(pattern.split('.'), 0, topic.split('.'), 0);
}

function match(pattern: string[], p: number, words: string[], w: number): boolean {
  if (p === pattern.length) return w === words.length;
  if (pattern[p] === '#') {
    for (let skip = w; skip <= words.length; skip++) if (match(pattern, p + 1, words, skip)) return true;
    return false;
  }
  if (w === words.length) return false;
  return (pattern[p] === '*' || pattern[p] === words[w]) && match(pattern, p + 1, words, w + 1);
}

const WORD = /^(?:[A-Za-z0-9_-]+|\*|#)$/;

export function isValidTopicPattern(pattern: string): boolean {
  return pattern.split('.').every((word) => WORD.test(word));
}

export function isValidTopic(topic: string): boolean {
  return topic.split('.').every((word) => /^[A-Za-z0-9_-]+$/.test(word));
}
