import type { CallInstruction } from '../../driver';

/**
 * Instructions as TwiML. Lines said before a `listen` go inside its `<Gather>`, so the
 * caller can talk over them (Twilio stops speaking when speech starts): callers do
 * not wait for an agent to finish before they answer. The Gather reports silence to
 * the same action (`actionOnEmptyResult`), so the plugin, not Twilio, decides what a
 * silence means.
 */
export function renderTwiml(instructions: readonly CallInstruction[], listenUrl: string): string {
  const verbs: string[] = [];
  let pendingSays: string[] = [];
  const flushSays = () => {
    verbs.push(...pendingSays);
    pendingSays = [];
  };
  for (const instruction of instructions) {
    switch (instruction.type) {
      case 'say':
        pendingSays.push(say(instruction));
        break;
      case 'listen':
        verbs.push(
          `<Gather input="speech" action="${xml(listenUrl)}" method="POST" timeout="${instruction.timeoutSeconds}" speechTimeout="auto" ` +
            `language="${xml(instruction.language)}" actionOnEmptyResult="true">${pendingSays.join('')}</Gather>`,
        );
        pendingSays = [];
        break;
      case 'transfer':
        flushSays();
        verbs.push(`<Dial>${dialTarget(instruction.destination)}</Dial>`);
        break;
      case 'hangup':
        flushSays();
        verbs.push('<Hangup/>');
        break;
    }
  }
  flushSays();
  return `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs.join('')}</Response>`;
}

function say(instruction: Extract<CallInstruction, { type: 'say' }>): string {
  const voice = instruction.voice ? ` voice="${xml(instruction.voice)}"` : '';
  return `<Say${voice} language="${xml(instruction.language)}">${xml(instruction.text)}</Say>`;
}

/** A SIP address dials as `<Sip>`; a number (or anything Twilio can dial) as `<Number>`. */
function dialTarget(destination: string): string {
  return /^sips?:/i.test(destination) ? `<Sip>${xml(destination)}</Sip>` : `<Number>${xml(destination)}</Number>`;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text and attribute values escaped; characters XML 1.0 cannot carry at all are dropped. */
export function xml(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"']/g, (char) => ENTITIES[char]);
}
