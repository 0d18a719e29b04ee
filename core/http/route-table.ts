/**
 * Finds the route of a request by walking its path one segment at a time, instead of
 * express's router trying every registered route's regular expression in turn: that
 * costs a match per route registered before the one requested, so it grew with every
 * plugin (measured on bench/api-read with two plugins loaded: the router's layers were
 * about 4 us and 560 bytes of garbage of a request).
 *
 * Paths are written as express writes them: static segments and `:name` parameters.
 * Matching keeps express's defaults (`case sensitive routing` and `strict routing`
 * off): static segments match in any case, one trailing slash is ignored, parameter
 * values are percent-decoded and never empty. Where a static segment and a parameter
 * could both match, the static one is tried first and the parameter after it, so
 * `/data/imports/:uuid` and `/data/:uuid/fields` never shadow each other, whatever
 * order they were registered in. HEAD runs the GET route.
 */
export interface RouteMatch<T> {
  value: T;
  params: Record<string, string>;
}

/** A path segment that is not valid percent-encoding: the request is malformed (400). */
export class MalformedPathError extends Error {}

interface Leaf<T> {
  value: T;
  /** The route's parameter names, in path order. */
  names: string[];
}

interface Node<T> {
  statics: Map<string, Node<T>>;
  /** One child for a parameter in this position, whatever each route calls it. */
  param?: Node<T>;
  leaves: Map<string, Leaf<T>>;
}

const newNode = <T>(): Node<T> => ({ statics: new Map(), leaves: new Map() });

export class RouteTable<T> {
  private readonly root: Node<T> = newNode();

  /** Adds a route; a path `routePathProblem` refuses, or the same method and path twice, is an error. */
  add(method: string, path: string, value: T): void {
    const problem = routePathProblem(path);
    if (problem) throw new Error(problem);
    let node = this.root;
    const names: string[] = [];
    for (const segment of pathSegments(path)) {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        node = node.param ??= newNode();
      } else {
        const key = segment.toLowerCase();
        let next = node.statics.get(key);
        if (!next) node.statics.set(key, (next = newNode()));
        node = next;
      }
    }
    const verb = method.toUpperCase();
    if (node.leaves.has(verb)) throw new Error(`route ${verb} ${path} is added twice`);
    node.leaves.set(verb, { value, names });
  }

  /** The route for a method and a path (without its query string), or undefined. */
  match(method: string, path: string): RouteMatch<T> | undefined {
    const segments = pathSegments(path);
    const values: string[] = [];
    const leaf = this.walk(this.root, segments, 0, values, method, method === 'HEAD' ? 'GET' : method);
    if (!leaf) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < leaf.names.length; i++) params[leaf.names[i]] = decodeSegment(values[i]);
    return { value: leaf.value, params };
  }

  /** The methods some route answers at a path (HEAD wherever GET is), for OPTIONS. */
  methodsAt(path: string): string[] {
    const segments = pathSegments(path);
    const methods = new Set<string>();
    const visit = (node: Node<T>, index: number): void => {
      if (index === segments.length) {
        for (const method of node.leaves.keys()) methods.add(method);
        return;
      }
      const next = node.statics.get(segments[index].toLowerCase());
      if (next) visit(next, index + 1);
      if (node.param && segments[index] !== '') visit(node.param, index + 1);
    };
    visit(this.root, 0);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  /** Depth first, static before parameter; `values` holds the parameter segments of the current path. */
  private walk(node: Node<T>, segments: string[], index: number, values: string[], method: string, fallbackMethod: string): Leaf<T> | undefined {
    if (index === segments.length) return node.leaves.get(method) ?? node.leaves.get(fallbackMethod);
    const segment = segments[index];
    const next = node.statics.get(segment) ?? node.statics.get(segment.toLowerCase());
    if (next) {
      const found = this.walk(next, segments, index + 1, values, method, fallbackMethod);
      if (found) return found;
    }
    if (node.param && segment !== '') {
      values.push(segment);
      const found = this.walk(node.param, segments, index + 1, values, method, fallbackMethod);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }
}

/**
 * Why a route path cannot be added, or undefined: it must start with `/` and be made of
 * static segments and `:name` parameters (letters, digits, `_`). The route registry
 * checks this when a plugin adds a route, so a bad path is a boot error naming it.
 */
export function routePathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return `route path ${path} must start with /`;
  for (const segment of pathSegments(path)) {
    if (segment.startsWith(':') ? !/^:[A-Za-z0-9_]+$/.test(segment) : /[*?(){}:]/.test(segment)) {
      return `route path ${path}: "${segment}" is neither a static segment nor a :parameter (letters, digits, _)`;
    }
  }
  return undefined;
}

/** The segments of a path, one trailing slash ignored (express's `strict routing` off). */
function pathSegments(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' ? [] : trimmed.slice(1).split('/');
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new MalformedPathError(`Malformed percent-encoding in the URL path: "${segment}"`);
  }
}
