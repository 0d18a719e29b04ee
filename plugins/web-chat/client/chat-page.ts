import { CHAT_CLIENT_JS, CHAT_CSS } from './chat-client';

/** Text safe inside an HTML attribute or element. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The hosted chat page of one channel: a heading, the chat, and the script that mounts it
 * against this server (same origin, so no CORS grant is involved). Inline script and
 * style carry the response's CSP nonce; the page may load and connect to nothing else.
 */
export function chatPageHtml(publicKey: string, nonce: string): string {
  const key = escapeHtml(publicKey);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat</title>
<style nonce="${nonce}">
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 1rem; color: #1a1a1a; background: #f6f6f6; }
main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
${CHAT_CSS}
</style>
</head>
<body>
<main>
<h1 id="sb-title">Chat with us</h1>
<section id="sb-chat" aria-labelledby="sb-title" data-public-key="${key}"></section>
</main>
<script nonce="${nonce}">
${CHAT_CLIENT_JS}
(function () {
  var root = document.getElementById('sb-chat');
  var chat = mountChat(root, { base: location.origin, publicKey: root.getAttribute('data-public-key') });
  chat.input.focus();
})();
</script>
</body>
</html>
`;
}
