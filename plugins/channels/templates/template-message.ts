import { isHttpUrl, type FieldErrors } from '../../../core';
import type { TemplateParameters } from '../entities/chatapp-template.entity';
import { placeholdersOf, sendComponents, variableErrors, variablesByComponent } from './template-parameters';

/**
 * What a template message fills beyond the body's placeholders, checked against the
 * template's stored components and put in the shape the Cloud API's `template.components`
 * takes: the header's value (the text of its `{{1}}`, or the link of its image, video or
 * document: `{type: 'header', parameters: [{type: 'image', image: {link}}]}`), and the
 * buttons that take one (`{type: 'button', sub_type: 'quick_reply', index: '0',
 * parameters: [{type: 'payload', payload}]}`, or `sub_type: 'url'` with `[{type: 'text',
 * text}]`: the suffix of a URL button whose url ends in `{{1}}`).
 */

/** A template message's values, as a send_message task's `task_data` gives them. */
export interface TemplateFill {
  /** The placeholders' values: a list (the body's) or `{header?: [...], body?: [...]}`; text, or the body's currency and date_time parameters (template-values.ts). */
  variables?: unknown;
  /** `{type: 'text', text}` for a text header's placeholder, or `{type: 'image' | 'video' | 'document', link, filename?}` for a media header. */
  header?: unknown;
  /** `[{index, sub_type: 'quick_reply', payload} | {index, sub_type: 'url', text}]`. */
  buttons?: unknown;
}

interface Template {
  components: readonly unknown[];
  parameters: TemplateParameters;
}

const MEDIA = ['image', 'video', 'document'] as const;
type Media = (typeof MEDIA)[number];
const MAX_VALUE = 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isValue = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= MAX_VALUE;
const componentOf = (components: readonly unknown[], type: string) => components.find((component) => isRecord(component) && String(component.type).toLowerCase() === type) as Record<string, unknown> | undefined;

/** The header's format as the template stores it (`TEXT` when it says none), or null when it has no header. */
function headerFormat(components: readonly unknown[]): string | null {
  const header = componentOf(components, 'header');
  return header ? String(header.format ?? 'TEXT').toUpperCase() : null;
}

/** The template's buttons in order, each with its type (`QUICK_REPLY`, `URL`, `PHONE_NUMBER`, ...) and whether its url takes a suffix. */
function buttonsOf(components: readonly unknown[]): Array<{ type: string; dynamic: boolean }> {
  const buttons = componentOf(components, 'buttons')?.buttons;
  return (Array.isArray(buttons) ? buttons : []).map((button) => {
    const type = isRecord(button) ? String(button.type).toUpperCase() : '';
    return { type, dynamic: type === 'URL' && isRecord(button) && typeof button.url === 'string' && placeholdersOf(button.url).length > 0 };
  });
}

/** The buttons as given, read leniently (after templateFillErrors found none). */
function givenButtons(buttons: unknown): Array<{ index: number; sub_type: 'quick_reply' | 'url'; value: string }> {
  return (Array.isArray(buttons) ? buttons : [])
    .filter(isRecord)
    .map((button) => ({ index: Number(button.index), sub_type: button.sub_type as 'quick_reply' | 'url', value: String(button.sub_type === 'url' ? button.text : button.payload) }))
    .sort((a, b) => a.index - b.index);
}

function headerErrors(components: readonly unknown[], fill: TemplateFill, path: string, add: (at: string, message: string) => void): void {
  const format = headerFormat(components);
  const header = fill.header;
  if (header === undefined || header === null) {
    if (format && (MEDIA as readonly string[]).includes(format.toLowerCase())) add(`${path}.header`, `is required: the template’s header is a ${format.toLowerCase()} ({type: "${format.toLowerCase()}", link})`);
    return;
  }
  const at = `${path}.header`;
  if (!isRecord(header) || !['text', ...MEDIA].includes(String(header.type))) return add(at, 'must be {type: "text", text} or {type: "image" | "video" | "document", link}');
  if (!format) return add(at, 'the template has no header');
  if (header.type === 'text') {
    if (format !== 'TEXT') return add(`${at}.type`, `must be ${format.toLowerCase()}: the template’s header is a ${format.toLowerCase()}`);
    if (isRecord(fill.variables) && 'header' in fill.variables) return add(at, 'is given twice: in header and in variables.header');
    const text = componentOf(components, 'header')?.text;
    if (typeof text !== 'string' || placeholdersOf(text).length === 0) return add(at, 'the template’s header has no placeholder to fill');
    if (!isValue(header.text)) add(`${at}.text`, `must be a non-empty string of at most ${MAX_VALUE} characters`);
    return;
  }
  if (format !== String(header.type).toUpperCase()) return add(`${at}.type`, `must be ${format.toLowerCase()}: the template’s header is a ${format.toLowerCase()}`);
  if (typeof header.link !== 'string' || header.link.length > 2048 || !isHttpUrl(header.link)) add(`${at}.link`, 'must be an http or https URL the platform can fetch the media from');
  if (header.filename !== undefined && (header.type !== 'document' || !isValue(header.filename))) add(`${at}.filename`, 'is taken for a document header only, as a non-empty string');
}

function buttonErrors(components: readonly unknown[], fill: TemplateFill, path: string, add: (at: string, message: string) => void): void {
  const template = buttonsOf(components);
  const given = fill.buttons === undefined || fill.buttons === null ? [] : fill.buttons;
  if (!Array.isArray(given)) return add(`${path}.buttons`, 'must be a list of {index, sub_type: "quick_reply", payload} or {index, sub_type: "url", text}');
  const seen = new Set<number>();
  given.forEach((button, position) => {
    const at = `${path}.buttons.${position}`;
    if (!isRecord(button)) return add(at, 'must be {index, sub_type: "quick_reply", payload} or {index, sub_type: "url", text}');
    const index = button.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) return add(`${at}.index`, 'must be the button’s position in the template, from 0');
    if (seen.has(index)) return add(`${at}.index`, `gives button ${index} twice`);
    seen.add(index);
    const own = template[index];
    if (!own) return add(`${at}.index`, `the template has no button ${index} (it has ${template.length})`);
    if (button.sub_type === 'quick_reply') {
      if (own.type !== 'QUICK_REPLY') return add(`${at}.sub_type`, `button ${index} of the template is a ${own.type} button, not a quick reply`);
      if (!isValue(button.payload)) add(`${at}.payload`, `must be a non-empty string of at most ${MAX_VALUE} characters`);
    } else if (button.sub_type === 'url') {
      if (!own.dynamic) return add(`${at}.sub_type`, `button ${index} of the template is not a URL button with a {{1}} suffix`);
      if (!isValue(button.text)) add(`${at}.text`, `must be a non-empty string of at most ${MAX_VALUE} characters: the suffix of the button’s URL`);
    } else {
      add(`${at}.sub_type`, 'must be quick_reply or url');
    }
  });
  template.forEach((own, index) => {
    if (own.dynamic && !seen.has(index)) add(`${path}.buttons`, `must give the URL suffix of button ${index} ({index: ${index}, sub_type: "url", text})`);
  });
}

/**
 * Whether the values fill the template exactly: its placeholders (`variables`), its
 * header's value (a media header must be given its link), and its buttons (each URL
 * button with a `{{1}}` needs its suffix); each problem at `<path>.variables…`,
 * `<path>.header…` or `<path>.buttons…`.
 */
export function templateFillErrors(template: Template, fill: TemplateFill, path: string): FieldErrors {
  const errors: FieldErrors = {};
  const add = (at: string, message: string) => void (errors[at] ??= []).push(message);
  // A header's text given in `header` fills the header's placeholder: the variables then fill the rest.
  const headerText = isRecord(fill.header) && fill.header.type === 'text';
  const { header: _filled, ...others } = template.parameters;
  Object.assign(errors, variableErrors(headerText ? others : template.parameters, fill.variables, `${path}.variables`));
  headerErrors(template.components, fill, path, add);
  buttonErrors(template.components, fill, path, add);
  return errors;
}

/** The `components` of the send, header first, then the body, then the buttons by index. Call after templateFillErrors found none. */
export function templateSendComponents(components: readonly unknown[], fill: TemplateFill): Array<Record<string, unknown>> {
  const header = isRecord(fill.header) ? fill.header : null;
  const variables = header?.type === 'text' ? { ...(variablesByComponent(fill.variables) ?? {}), header: [header.text] } : fill.variables;
  const sent = sendComponents(components, variables);
  if (header && (MEDIA as readonly string[]).includes(String(header.type))) {
    const type = header.type as Media;
    const media = { link: header.link, ...(type === 'document' && typeof header.filename === 'string' ? { filename: header.filename } : {}) };
    sent.unshift({ type: 'header', parameters: [{ type, [type]: media }] });
  }
  for (const button of givenButtons(fill.buttons)) {
    sent.push({
      type: 'button',
      sub_type: button.sub_type,
      index: String(button.index),
      parameters: [button.sub_type === 'url' ? { type: 'text', text: button.value } : { type: 'payload', payload: button.value }],
    });
  }
  return sent;
}
