import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ImportSourceError, type ImportReader } from '../import-reader';
import { objectRows, type SourceObject } from './object-rows';
import { readAll } from './read-all';

type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Values stay text: column types are inferred from them like CSV cells.
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  htmlEntities: true,
});

const isNode = (value: unknown): value is XmlNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * XML with repeated record elements, each one row: its child elements and attributes
 * (`@name`) are the columns; a child that is itself structured, or repeated, is kept as
 * JSON. The record element is the import's `record_element` (found at any depth), else
 * the child of the root that repeats most (through single wrapper elements, so
 * `<export><items><item>...` finds `item`).
 *
 * fast-xml-parser has no streaming mode: the document is parsed whole, which the
 * upload limit keeps bounded (a 50 MiB file takes a few hundred MB at most, briefly).
 */
export const readXml: ImportReader = async function* (context) {
  const text = (await readAll(context.content())).toString('utf8');
  // The parser alone accepts unclosed tags; a document that is not well-formed is refused rather than half read.
  // XMLValidator is deprecated in favour of a separate package, which is not a dependency; it is still fast-xml-parser's own check.
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new ImportSourceError(`Not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const document = parser.parse(text) as XmlNode;
  const roots = Object.keys(document).filter((name) => !name.startsWith('#'));
  if (roots.length !== 1 || !isNode(document[roots[0]])) throw new ImportSourceError('The XML has no root element with records in it');
  const wanted = context.import.options.record_element;
  const found = typeof wanted === 'string' ? findElement(document[roots[0]] as XmlNode, wanted) : mostRepeated(document[roots[0]] as XmlNode);
  if (!found) {
    throw new ImportSourceError(typeof wanted === 'string' ? `The XML has no <${wanted}> elements` : `The root element <${roots[0]}> has no child elements to import`);
  }
  yield* objectRows(records(found.name, found.value));
};

/** The first elements named `name`, depth first. */
function findElement(node: XmlNode, name: string): { name: string; value: unknown } | undefined {
  for (const [key, value] of Object.entries(node)) {
    if (key === name) return { name, value };
    for (const child of Array.isArray(value) ? value : [value]) {
      if (!isNode(child)) continue;
      const found = findElement(child, name);
      if (found) return found;
    }
  }
  return undefined;
}

/** The child element that repeats most; through single wrapper elements; else the first child, as the one record. */
function mostRepeated(node: XmlNode): { name: string; value: unknown } | undefined {
  const children = childElements(node);
  return repeatedIn(node) ?? (children.length > 0 ? { name: children[0][0], value: children[0][1] } : undefined);
}

function repeatedIn(node: XmlNode): { name: string; value: unknown } | undefined {
  const children = childElements(node);
  const repeated = children.filter(([, value]) => Array.isArray(value)).sort(([, a], [, b]) => (b as unknown[]).length - (a as unknown[]).length);
  if (repeated.length > 0) return { name: repeated[0][0], value: repeated[0][1] };
  return children.length === 1 && isNode(children[0][1]) ? repeatedIn(children[0][1]) : undefined;
}

const childElements = (node: XmlNode) => Object.entries(node).filter(([key]) => !key.startsWith('@') && key !== '#text');

/** Each record as an object; a record that is only text becomes one member named after its element. */
async function* records(name: string, value: unknown): AsyncGenerator<SourceObject> {
  const list = Array.isArray(value) ? value : [value];
  for (let index = 0; index < list.length; index++) {
    const record = list[index];
    yield { row: index + 1, value: isNode(record) ? record : { [name]: record } };
  }
}
