import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { webChatAgent, WEB_CHAT_PLUGINS, type ChatChannel } from './web-chat-test-kit';

/**
 * The hosted chat page and the widget in a real browser: Debian's Chromium (`.ci/run`
 * installs it) driven by puppeteer-core, against a kernel listening on a port and a
 * scripted model. The widget is embedded in pages of two other origins (other ports):
 * one the channel allows, one it does not.
 */
const CHROMIUM = '/usr/bin/chromium';

interface Site {
  origin: string;
  close(): Promise<void>;
}

/** A shop's website on another origin: one page with the widget's script tag for `?key=`. */
async function startSite(kernelUrl: string): Promise<Site> {
  const server = http.createServer((req, res) => {
    const key = new URL(req.url!, 'http://site').searchParams.get('key') ?? '';
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head>` +
        `<body><h1>Shop</h1><p><a href="#top">Products</a></p>` +
        `<script src="${kernelUrl}/widget.js" data-public-key="${key}" async></script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let model: FakeLlmServer;
let kit: TestKernel;
let browser: Browser;
let shop: Site;
let foreign: Site;
let chat: ChatChannel;

beforeAll(async () => {
  // Missing Chromium is a failure, not a skip: CI installs it.
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: WEB_CHAT_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmApiKey: 'sk-operator', llmMaxRetries: 0 } });
  shop = await startSite(kit.url);
  foreign = await startSite(kit.url);
  chat = await webChatAgent(kit.api, { allowed_origins: [shop.origin] });
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--headless=new'] });
});
afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await foreign?.close();
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const visitorCount = async (): Promise<number> => {
  const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select count(*)::int as n from web_chat_visitors');
  return row.n;
};

/** The widget's shadow root, for page.evaluate. */
const widgetRoot = 'document.querySelector("[data-switchboard-chat]").shadowRoot';

async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

describe('web chat in a browser', () => {
  it('the hosted page: keyboard only, Shift+Enter is a new line, Enter sends, typing shows, the streamed answer lands in the live log', async () => {
    const page = await newPage();
    try {
      const before = model.requests.length;
      await page.goto(`${kit.url}/chat/${chat.key}`, { waitUntil: 'load' });
      // The message box has focus and a visible label; the log is a polite live region.
      const box = await page.evaluate(`(() => {
        const input = document.activeElement;
        const log = document.querySelector('[role="log"]');
        return { tag: input.tagName, label: input.labels[0] && input.labels[0].textContent, live: log.getAttribute('aria-live') };
      })()`);
      expect(box).toEqual({ tag: 'TEXTAREA', label: 'Your message', live: 'polite' });

      await page.keyboard.type('Do you open');
      await page.keyboard.down('Shift');
      await page.keyboard.press('Enter');
      await page.keyboard.up('Shift');
      await page.keyboard.type('on Saturdays?');
      expect(await page.evaluate('document.activeElement.value')).toBe('Do you open\non Saturdays?');
      expect(model.requests.length).toBe(before);

      model.reply({ content: 'Yes, from nine to one.', chunks: ['Yes, ', 'from nine ', 'to one.'], delayMs: 700 });
      await page.keyboard.press('Enter');
      await page.waitForFunction(`document.querySelector('[role="status"]').textContent.includes('typing')`);
      await page.waitForFunction(`document.querySelector('[role="log"]').textContent.includes('Yes, from nine to one.')`);
      // The log is busy while the reply streams (screen readers read it once finished), then not.
      await page.waitForFunction(`!document.querySelector('[role="log"]').hasAttribute('aria-busy')`);
      // Browser-side code is given as text: the project's TypeScript has no DOM types.
      const after = await page.evaluate(`({
        messages: [...document.querySelectorAll('.sb-msg')].map((m) => [m.className, m.querySelector('.sb-text').textContent]),
        typing: document.querySelector('[role="status"]').textContent,
        busy: document.querySelector('[role="log"]').getAttribute('aria-busy'),
        focused: document.activeElement.tagName,
        value: document.activeElement.value,
        outline: getComputedStyle(document.activeElement).outlineStyle,
      })`);
      expect(after).toEqual({
        messages: [
          ['sb-msg sb-customer', 'Do you open\non Saturdays?'],
          ['sb-msg sb-agent', 'Yes, from nine to one.'],
        ],
        typing: '',
        busy: null,
        focused: 'TEXTAREA',
        value: '',
        outline: 'solid',
      });
      // The reply came over the streaming path, and the message reached the model as typed.
      expect(model.requests.length).toBe(before + 1);
      expect(model.requests.at(-1)!.body.stream).toBe(true);
      expect(model.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'Do you open\non Saturdays?' });

      // A reload continues the same conversation, its history shown.
      await page.reload({ waitUntil: 'load' });
      await page.waitForFunction(`document.querySelectorAll('.sb-msg').length === 2`);
    } finally {
      await page.close();
    }
  });

  it('the widget on an allowed origin: a launcher opens an accessible dialog, the chat answers, Escape closes it', async () => {
    const page = await newPage();
    try {
      await page.goto(`${shop.origin}/?key=${chat.key}`, { waitUntil: 'load' });
      await page.waitForSelector('pierce/.sb-launcher');
      // Keyboard only: Tab past the page's link to the launcher, Enter opens the dialog.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(`${widgetRoot}.activeElement && ${widgetRoot}.activeElement.className`)).toBe('sb-launcher');
      await page.keyboard.press('Enter');
      const opened = await page.evaluate(`(() => {
        const root = ${widgetRoot};
        const dialog = root.querySelector('[role="dialog"]');
        return {
          expanded: root.querySelector('.sb-launcher').getAttribute('aria-expanded'),
          hidden: dialog.hidden,
          labelled: root.getElementById(dialog.getAttribute('aria-labelledby')).textContent,
          focused: root.activeElement.tagName,
          live: root.querySelector('[role="log"]').getAttribute('aria-live'),
        };
      })()`);
      expect(opened).toEqual({ expanded: 'true', hidden: false, labelled: 'Chat with us', focused: 'TEXTAREA', live: 'polite' });

      model.reply({ content: 'We ship worldwide.', chunks: ['We ship ', 'worldwide.'] });
      await page.keyboard.type('Do you ship abroad?');
      await page.keyboard.press('Enter');
      await page.waitForFunction(`${widgetRoot}.querySelector('[role="log"]').textContent.includes('We ship worldwide.')`);
      const texts = await page.evaluate(`[...${widgetRoot}.querySelectorAll('.sb-msg .sb-text')].map((m) => m.textContent)`);
      expect(texts).toEqual(['Do you ship abroad?', 'We ship worldwide.']);
      // The conversation is the agent's, opened from the shop's origin.
      const opener = await kit.kernel.orm.em.fork().getConnection().execute(`select channel, channel_label from conversations where agent_uuid = ? order by created_at desc limit 1`, [chat.agent]);
      expect(opener[0]).toEqual({ channel: 'chat', channel_label: `Web chat on ${shop.origin}` });

      await page.keyboard.press('Escape');
      const closed = await page.evaluate(`({ hidden: ${widgetRoot}.querySelector('[role="dialog"]').hidden, focused: ${widgetRoot}.activeElement.className })`);
      expect(closed).toEqual({ hidden: true, focused: 'sb-launcher' });
    } finally {
      await page.close();
    }
  });

  it('the widget on an origin the channel does not allow: the browser refuses (CORS) and nothing is opened', async () => {
    const page = await newPage();
    try {
      const visitors = await visitorCount();
      await page.goto(`${foreign.origin}/?key=${chat.key}`, { waitUntil: 'load' });
      await page.waitForSelector('pierce/.sb-launcher');
      await page.click('pierce/.sb-launcher');
      await page.keyboard.type('Hello?');
      await page.keyboard.press('Enter');
      await page.waitForFunction(`${widgetRoot}.querySelector('[role="log"]').textContent.includes('Not sent')`);
      // fetch itself fails: the preflight got no grant, so the POST never left the browser.
      const url = JSON.stringify(`${kit.url}/public/v1/chat/${chat.key}/conversations`);
      const direct = await page.evaluate(
        `fetch(${url}, { method: 'POST', headers: { 'Content-Type': 'application/json' } }).then((response) => 'answered ' + response.status, (error) => 'failed: ' + error.name)`,
      );
      expect(direct).toBe('failed: TypeError');
      expect(await visitorCount()).toBe(visitors);
    } finally {
      await page.close();
    }
  });
});
