import type { CallInstruction, CallbackKind, ServedKind } from '../../driver';

/**
 * Instructions as TwiML. Lines said before a `listen` go inside its `<Gather>`, so the
 * caller can talk over them (Twilio stops speaking when speech starts): callers do
 * not wait for an agent to finish before they answer. The Gather reports silence to
 * the same action (`actionOnEmptyResult`), so the plugin, not Twilio, decides what a
 * silence means.
 *
 * A transfer is a `<Dial>` whose `action` is the call's `dial` callback: Twilio requests it
 * when the dial ends, with `DialCallStatus`, and plays what we answer to the caller (a
 * hangup after a completed transfer, the agent's fallback line and a `<Gather>` when nobody
 * answered). `timeout` is how long the callee rings. `cold` dials the destination bare; `warm` gives the `<Number>`
 * (or `<Sip>`) noun a `url`, which Twilio fetches on the callee's leg once they answer and
 * plays to them alone before bridging the caller (Twilio's documented whisper): our
 * `announce` URL answers a `<Say>` of the announcement.
 */
export function renderTwiml(instructions: readonly CallInstruction[], callbackUrl: (kind: CallbackKind | ServedKind) => string): string {
  const listenUrl = callbackUrl('listen');
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
      case 'transfer': {
        flushSays();
        const whisper = instruction.mode === 'warm' && instruction.announcement?.text.trim() ? announceUrl(callbackUrl('announce'), instruction.announcement.text) : null;
        const timeout = instruction.timeoutSeconds === undefined ? '' : ` timeout="${instruction.timeoutSeconds}"`;
        verbs.push(`<Dial action="${xml(callbackUrl('dial'))}" method="POST"${timeout}>${dialTarget(instruction.destination, whisper)}</Dial>`);
        break;
      }
      case 'hangup':
        flushSays();
        verbs.push('<Hangup/>');
        break;
    }
  }
  flushSays();
  return document(verbs);
}

const document = (verbs: string[]) => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs.join('')}</Response>`;

/**
 * The call alone in a conference named `room`, after the lines of `before`: how the driver
 * mutes a call (its participant is then muted through the Participants resource). No beep,
 * the conference starts as the call enters and ends as it leaves (a live update taking it
 * out ends the room: Twilio removes a participant whose call gets new TwiML).
 */
export function conferenceTwiml(before: readonly CallInstruction[], room: string): string {
  const verbs = before.flatMap((instruction) => (instruction.type === 'say' ? [say(instruction)] : []));
  verbs.push(`<Dial><Conference beep="false" startConferenceOnEnter="true" endConferenceOnExit="true">${xml(room)}</Conference></Dial>`);
  return document(verbs);
}

/** The announce URL with the text in its query (covered by Twilio's signature of the request it makes to it). */
function announceUrl(base: string, text: string): string {
  return `${base}${base.includes('?') ? '&' : '?'}text=${encodeURIComponent(text.slice(0, 1000))}`;
}

function say(instruction: Extract<CallInstruction, { type: 'say' }>): string {
  const voice = instruction.voice ? ` voice="${xml(instruction.voice)}"` : '';
  return `<Say${voice} language="${xml(instruction.language)}">${xml(instruction.text)}</Say>`;
}

/** A SIP address dials as `<Sip>`; a number (or anything Twilio can dial) as `<Number>`; `whisper`: the noun's `url`. */
function dialTarget(destination: string, whisper: string | null): string {
  const noun = /^sips?:/i.test(destination) ? 'Sip' : 'Number';
  const attributes = whisper ? ` url="${xml(whisper)}" method="POST"` : '';
  return `<${noun}${attributes}>${xml(destination)}</${noun}>`;
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text and attribute values escaped; characters XML 1.0 cannot carry at all are dropped. */
export function xml(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"']/g, (char) => ENTITIES[char]);
}
