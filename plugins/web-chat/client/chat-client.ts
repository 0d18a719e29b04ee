/**
 * The chat as it runs in the visitor's browser, shared by the hosted page and the widget:
 * plain JavaScript (no framework, no build step), served as text. `mountChat(root,
 * options)` builds the conversation log, the typing indicator and the message form
 * inside `root` (an element, or the widget's shadow root) and talks to the public routes
 * at `options.base`.
 *
 * Replies stream as Server-Sent Events over `fetch` and a body reader: EventSource
 * cannot POST nor send the visitor token. Accessibility: the log is `role="log"` with
 * `aria-live="polite"`, marked `aria-busy` while a reply streams so that screen readers
 * read the finished reply once rather than every fragment; the typing indicator is a
 * `role="status"`; the textarea has a visible label; Enter sends and Shift+Enter adds
 * a line; focus stays in the textarea.
 */
export const CHAT_CLIENT_JS = String.raw`
function mountChat(root, options) {
  var doc = document;
  var api = options.base + '/public/v1/chat/' + encodeURIComponent(options.publicKey) + '/conversations';
  var storeKey = 'switchboard-chat:' + options.publicKey;
  var uid = Math.random().toString(36).slice(2);
  var session = readSession();
  var busy = false;

  function el(tag, attributes, text) {
    var node = doc.createElement(tag);
    for (var name in attributes) node.setAttribute(name, attributes[name]);
    if (text) node.textContent = text;
    return node;
  }

  var log = el('div', { class: 'sb-log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions text', 'aria-label': 'Conversation', tabindex: '0' });
  var typing = el('p', { class: 'sb-typing', role: 'status' });
  var form = el('form', { class: 'sb-form', novalidate: '' });
  var label = el('label', { for: 'sb-input-' + uid }, 'Your message');
  var input = el('textarea', { id: 'sb-input-' + uid, name: 'message', rows: '2', maxlength: '8000', autocomplete: 'off', 'aria-describedby': 'sb-hint-' + uid });
  var hint = el('p', { id: 'sb-hint-' + uid, class: 'sb-hint' }, 'Enter sends; Shift+Enter starts a new line.');
  var send = el('button', { type: 'submit', class: 'sb-send' }, 'Send');
  var row = el('div', { class: 'sb-row' });
  row.appendChild(input);
  row.appendChild(send);
  form.appendChild(label);
  form.appendChild(row);
  form.appendChild(hint);
  root.appendChild(log);
  root.appendChild(typing);
  root.appendChild(form);

  function readSession() {
    try {
      return JSON.parse(sessionStorage.getItem(storeKey) || 'null');
    } catch (error) {
      return null;
    }
  }
  function keepSession(value) {
    session = value;
    try {
      if (value) sessionStorage.setItem(storeKey, JSON.stringify(value));
      else sessionStorage.removeItem(storeKey);
    } catch (error) {
      // Storage refused (private mode): the conversation lasts as long as the page.
    }
  }

  function addMessage(sender, text) {
    var item = el('div', { class: 'sb-msg sb-' + sender });
    item.appendChild(el('span', { class: 'sb-visually-hidden' }, sender === 'customer' ? 'You: ' : sender === 'agent' ? 'Agent: ' : ''));
    var body = el('span', { class: 'sb-text' }, text);
    item.appendChild(body);
    log.appendChild(item);
    log.scrollTop = log.scrollHeight;
    return body;
  }
  function setTyping(on) {
    typing.textContent = on ? 'The agent is typing…' : '';
    typing.classList.toggle('sb-on', on);
  }
  function setBusy(on) {
    busy = on;
    send.setAttribute('aria-disabled', on ? 'true' : 'false');
    if (on) log.setAttribute('aria-busy', 'true');
    else log.removeAttribute('aria-busy');
  }

  async function failure(response) {
    var message = 'Something went wrong (' + response.status + ')';
    try {
      var body = await response.json();
      if (body && body.message) message = body.message;
    } catch (error) {
      // not JSON
    }
    var problem = new Error(message);
    problem.status = response.status;
    return problem;
  }

  async function openConversation() {
    var response = await fetch(api, { method: 'POST', headers: { Accept: 'application/json' } });
    if (!response.ok) throw await failure(response);
    var body = await response.json();
    keepSession({ conversation_uuid: body.data.conversation_uuid, visitor_token: body.data.visitor_token });
  }

  function post(text) {
    return fetch(api + '/' + session.conversation_uuid + '/messages', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + session.visitor_token, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ message: text }),
    });
  }

  /** Reads the event stream: each event is "event: <name>" and "data: <json>" lines ended by a blank line. */
  async function readEvents(response, onEvent) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = '';
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
      var end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        var block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        var name = 'message';
        var data = '';
        block.split('\n').forEach(function (line) {
          if (line.indexOf('event: ') === 0) name = line.slice(7);
          else if (line.indexOf('data: ') === 0) data += line.slice(6);
        });
        if (data) onEvent(name, JSON.parse(data));
      }
    }
  }

  async function say(text) {
    addMessage('customer', text);
    setBusy(true);
    setTyping(true);
    var streamed = null;
    try {
      if (!session) await openConversation();
      var response = await post(text);
      // A conversation that is over, or a token the server no longer knows: start afresh once.
      if (response.status === 409 || response.status === 401) {
        keepSession(null);
        await openConversation();
        response = await post(text);
      }
      if (!response.ok) throw await failure(response);
      await readEvents(response, function (name, data) {
        if (name === 'delta') {
          setTyping(false);
          if (!streamed) streamed = addMessage('agent', '');
          streamed.textContent += data.text;
          log.scrollTop = log.scrollHeight;
        } else if (name === 'done') {
          var turn = data.data;
          // The recorded messages replace what streamed: a reply split into several messages shows as several.
          if (streamed) log.removeChild(streamed.parentNode);
          streamed = null;
          turn.messages.forEach(function (message) { addMessage('agent', message.content); });
          if (turn.status === 'closed') {
            keepSession(null);
            addMessage('note', 'The conversation has ended. Write again to start a new one.');
          } else if (turn.status === 'transferred') {
            addMessage('note', 'You are being transferred.');
          }
        } else if (name === 'error') {
          throw new Error((data && data.message) || 'The reply failed');
        }
      });
    } catch (error) {
      addMessage('note', 'Not sent: ' + (error && error.message ? error.message : 'the chat cannot be reached') + '.');
    } finally {
      setTyping(false);
      setBusy(false);
    }
  }

  function submit() {
    var text = input.value.trim();
    if (!text || busy) return;
    input.value = '';
    say(text);
  }
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    submit();
  });
  input.addEventListener('keydown', function (event) {
    // Enter sends; Shift+Enter is a new line; Enter that confirms an input method's composition is not a send.
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });

  async function restore() {
    if (!session) return;
    try {
      var response = await fetch(api + '/' + session.conversation_uuid + '/messages', { headers: { Authorization: 'Bearer ' + session.visitor_token, Accept: 'application/json' } });
      if (!response.ok) return keepSession(null);
      var body = await response.json();
      if (body.data.status === 'closed') return keepSession(null);
      body.data.messages.forEach(function (message) { addMessage(message.sender, message.content); });
    } catch (error) {
      keepSession(null);
    }
  }
  restore();
  return { input: input };
}
`;

/** The chat's look: readable contrast, a visible focus ring, no motion for who asks for none. */
export const CHAT_CSS = `
.sb-log { display: flex; flex-direction: column; gap: .5rem; overflow-y: auto; min-height: 12rem; max-height: 60vh; padding: .75rem; border: 1px solid #8a8a8a; border-radius: .5rem; background: #fff; }
.sb-msg { max-width: 85%; padding: .5rem .75rem; border-radius: .75rem; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.4; }
.sb-customer { align-self: flex-end; background: #1a5fb4; color: #fff; }
.sb-agent { align-self: flex-start; background: #ececec; color: #1a1a1a; }
.sb-note { align-self: center; background: transparent; color: #444; font-style: italic; }
.sb-typing { min-height: 1.5em; margin: .25rem 0; color: #444; font-style: italic; }
.sb-typing.sb-on::after { content: ''; display: inline-block; width: .5em; animation: sb-dots 1s steps(3, end) infinite; }
@keyframes sb-dots { from { width: 0; } to { width: 1em; } }
@media (prefers-reduced-motion: reduce) { .sb-typing.sb-on::after { animation: none; } }
.sb-form label { display: block; font-weight: 600; margin-bottom: .25rem; }
.sb-row { display: flex; gap: .5rem; align-items: flex-end; }
.sb-row textarea { flex: 1; font: inherit; padding: .5rem; border: 1px solid #6b6b6b; border-radius: .375rem; resize: vertical; }
.sb-send, .sb-launcher, .sb-close { font: inherit; padding: .5rem 1rem; border: 0; border-radius: .375rem; background: #1a5fb4; color: #fff; cursor: pointer; }
.sb-send[aria-disabled='true'] { opacity: .6; }
.sb-hint { margin: .25rem 0 0; font-size: .875em; color: #444; }
.sb-visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
:focus-visible, .sb-row textarea:focus { outline: 3px solid #e66100; outline-offset: 2px; }
`;
