import { CHAT_CLIENT_JS, CHAT_CSS } from './chat-client';

/**
 * `/widget.js`: one script tag on any page of an allowed origin,
 * `<script src="https://switchboard.example/widget.js" data-public-key="pk_..." async></script>`,
 * adds a launcher button that opens the chat in a dialog. Everything lives in a shadow
 * root, so the page's styles and ours do not touch. The chat talks to the server the
 * script came from (its `src`); `data-title` names the button and the dialog.
 *
 * The dialog is non-modal (the visitor may go on reading the page): opening it moves
 * focus to the message box, Escape or the close button closes it and gives focus back
 * to the launcher, whose `aria-expanded` says whether it is open.
 */
export const WIDGET_JS = String.raw`(function () {
  'use strict';
  var script = document.currentScript;
  if (!script) return;
  var publicKey = script.getAttribute('data-public-key');
  if (!publicKey) return console.error('Switchboard chat: the script tag needs data-public-key');
  var base = new URL(script.src, location.href).origin;
  var title = script.getAttribute('data-title') || 'Chat with us';
` +
  CHAT_CLIENT_JS +
  String.raw`
  var css = ${JSON.stringify(CHAT_CSS)} +
    ':host { all: initial; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px; color: #1a1a1a; }' +
    '.sb-launcher { position: fixed; right: 1rem; bottom: 1rem; z-index: 2147483000; box-shadow: 0 2px 8px rgba(0,0,0,.3); }' +
    '.sb-dialog { position: fixed; right: 1rem; bottom: 4.5rem; z-index: 2147483000; width: min(24rem, calc(100vw - 2rem)); padding: 1rem; border-radius: .75rem; background: #f6f6f6; box-shadow: 0 4px 24px rgba(0,0,0,.35); }' +
    '.sb-dialog[hidden] { display: none; }' +
    '.sb-head { display: flex; justify-content: space-between; align-items: center; margin-bottom: .5rem; }' +
    '.sb-head h2 { font-size: 1.125rem; margin: 0; }' +
    '.sb-log { max-height: 45vh; }';

  function init() {
    var host = document.createElement('div');
    host.setAttribute('data-switchboard-chat', '');
    document.body.appendChild(host);
    var shadow = host.attachShadow({ mode: 'open' });
    var style = document.createElement('style');
    style.textContent = css;
    shadow.appendChild(style);

    var uid = Math.random().toString(36).slice(2);
    var launcher = document.createElement('button');
    launcher.type = 'button';
    launcher.className = 'sb-launcher';
    launcher.textContent = title;
    launcher.setAttribute('aria-haspopup', 'dialog');
    launcher.setAttribute('aria-expanded', 'false');
    launcher.setAttribute('aria-controls', 'sb-dialog-' + uid);

    var dialog = document.createElement('div');
    dialog.id = 'sb-dialog-' + uid;
    dialog.className = 'sb-dialog';
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'false');
    dialog.setAttribute('aria-labelledby', 'sb-heading-' + uid);
    dialog.hidden = true;
    var head = document.createElement('div');
    head.className = 'sb-head';
    var heading = document.createElement('h2');
    heading.id = 'sb-heading-' + uid;
    heading.textContent = title;
    var close = document.createElement('button');
    close.type = 'button';
    close.className = 'sb-close';
    close.textContent = 'Close';
    close.setAttribute('aria-label', 'Close the chat');
    head.appendChild(heading);
    head.appendChild(close);
    dialog.appendChild(head);
    shadow.appendChild(dialog);
    shadow.appendChild(launcher);

    var chat = null;
    function open() {
      // The chat is made on first open: a page that is only visited opens no conversation.
      if (!chat) chat = mountChat(dialog, { base: base, publicKey: publicKey });
      dialog.hidden = false;
      launcher.setAttribute('aria-expanded', 'true');
      chat.input.focus();
    }
    function shut() {
      dialog.hidden = true;
      launcher.setAttribute('aria-expanded', 'false');
      launcher.focus();
    }
    launcher.addEventListener('click', function () {
      if (dialog.hidden) open();
      else shut();
    });
    close.addEventListener('click', shut);
    dialog.addEventListener('keydown', function (event) {
      if (event.key === 'Escape') {
        event.preventDefault();
        shut();
      }
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
`;
