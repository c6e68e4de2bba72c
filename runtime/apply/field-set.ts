/**
 * A set of field paths, stored as a tree the way the real system stores it: at each level the
 * elements that are members (the path to them is in the set, `.` in FieldsV1) and the elements
 * with children (longer paths go through them). A path can be both: a list item owned as an item
 * and field by field.
 *
 * Sets are built with `insert`/`addMember`/`descend`; the set operations return fresh sets that
 * share no node with their inputs but frozen ones, which nothing can change (a set that shares one
 * copies it before adding below it).
 */
import { comparePathElements, type Path, type PathElement, serializePathElement } from './path-element.js';

/** One element at one level of a set, for walking it. */
export interface FieldSetEntry {
  readonly element: PathElement;
  /** The path to this element is itself in the set. */
  readonly member: boolean;
  /** The paths that go through this element; undefined when there are none. */
  readonly children: FieldSet | undefined;
}

interface ChildNode {
  readonly element: PathElement;
  readonly set: FieldSet;
}

export class FieldSet {
  // Keyed by the serialized element, which is canonical (key fields sorted, JSON normalized).
  private readonly members = new Map<string, PathElement>();
  private readonly nodes = new Map<string, ChildNode>();
  // Sets only grow, so emptiness is a flag raised up the tree by the first path below.
  private occupied = false;
  private parent: FieldSet | undefined;
  // A frozen set is shared (decoded sets are cached by their text), so nothing may add to it.
  private frozen = false;

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds a path; the empty path (the whole object) is never tracked. */
  insert(path: Path): this {
    const last = path.length - 1;
    if (last < 0) return this;
    let set: FieldSet = this;
    for (let i = 0; i < last; i++) set = set.descend(path[i] as PathElement);
    set.addMember(path[last] as PathElement);
    return this;
  }

  addMember(element: PathElement): this {
    this.putMember(serializePathElement(element), element);
    return this;
  }

  /** The subset below `element`, created empty when missing. */
  descend(element: PathElement): FieldSet {
    this.assertMutable();
    const key = serializePathElement(element);
    const node = this.nodes.get(key);
    if (node !== undefined) return this.mutableChild(key, node.element, node.set);
    const set = new FieldSet();
    set.parent = this;
    this.nodes.set(key, { element, set });
    return set;
  }

  hasMember(element: PathElement): boolean {
    return this.members.has(serializePathElement(element));
  }

  /** The subset below `element`; undefined when nothing in the set goes through it. */
  childAt(element: PathElement): FieldSet | undefined {
    const set = this.nodes.get(serializePathElement(element))?.set;
    return set === undefined || set.isEmpty() ? undefined : set;
  }

  has(path: Path): boolean {
    const [first, ...rest] = path;
    if (first === undefined) return false;
    if (rest.length === 0) return this.hasMember(first);
    return this.childAt(first)?.has(rest) ?? false;
  }

  /** Makes the set and every set below it read-only for good; returns it. */
  freeze(): this {
    this.frozen = true;
    for (const node of this.nodes.values()) node.set.freeze();
    return this;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  isEmpty(): boolean {
    return !this.occupied;
  }

  /** The number of paths in the set. */
  size(): number {
    let n = this.members.size;
    for (const node of this.nodes.values()) n += node.set.size();
    return n;
  }

  /** The elements of this level in the real system's order, members and children merged. */
  entries(): FieldSetEntry[] {
    const out: FieldSetEntry[] = [];
    for (const [key, element] of this.members) {
      const node = this.nodes.get(key);
      out.push({ element, member: true, children: node === undefined || node.set.isEmpty() ? undefined : node.set });
    }
    for (const [key, node] of this.nodes) {
      if (!node.set.isEmpty() && !this.members.has(key)) out.push({ element: node.element, member: false, children: node.set });
    }
    return out.sort((a, b) => comparePathElements(a.element, b.element));
  }

  /** Every path in the set, in order. */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    for (const entry of this.entries()) {
      if (entry.member) out.push([entry.element]);
      for (const rest of entry.children?.paths() ?? []) out.push([entry.element, ...rest]);
    }
    return out;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(other);
    return out;
  }

  /** Paths in both sets. */
  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, element] of this.members) if (other.members.has(key)) out.putMember(key, element);
    for (const [key, node] of this.nodes) {
      const theirs = other.nodes.get(key);
      if (theirs !== undefined) out.putChild(key, node.element, node.set.intersection(theirs.set));
    }
    return out;
  }

  /** Paths of this set not in `other`; a path of `other` does not remove the paths below it. */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, element] of this.members) if (!other.members.has(key)) out.putMember(key, element);
    for (const [key, node] of this.nodes) {
      const theirs = other.nodes.get(key);
      out.putChild(key, node.element, theirs === undefined ? node.set.shared() : node.set.difference(theirs.set));
    }
    return out;
  }

  /** Like `difference`, but a path of `other` also removes every path below it. */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [key, element] of this.members) if (!other.members.has(key)) out.putMember(key, element);
    for (const [key, node] of this.nodes) {
      if (other.members.has(key)) continue;
      const theirs = other.nodes.get(key);
      out.putChild(key, node.element, theirs === undefined ? node.set.shared() : node.set.recursiveDifference(theirs.set));
    }
    return out;
  }

  /** The paths with no longer path of the set below them. */
  leaves(): FieldSet {
    const out = new FieldSet();
    for (const [key, element] of this.members) {
      const node = this.nodes.get(key);
      if (node === undefined || node.set.isEmpty()) out.putMember(key, element);
    }
    for (const [key, node] of this.nodes) out.putChild(key, node.element, node.set.leaves());
    return out;
  }

  equals(other: FieldSet): boolean {
    return this === other || (this.isSubsetOf(other) && other.isSubsetOf(this));
  }

  copy(): FieldSet {
    const out = new FieldSet();
    out.addAll(this);
    return out;
  }

  /** Whether every path of this set is in `other` (`difference` would be empty), without making a set. */
  isSubsetOf(other: FieldSet): boolean {
    // Shared frozen parts are equal without a walk.
    if (this === other) return true;
    for (const key of this.members.keys()) if (!other.members.has(key)) return false;
    for (const [key, node] of this.nodes) {
      if (node.set.isEmpty()) continue;
      const theirs = other.nodes.get(key);
      if (theirs === undefined || !node.set.isSubsetOf(theirs.set)) return false;
    }
    return true;
  }

  private addAll(other: FieldSet): void {
    for (const [key, element] of other.members) this.putMember(key, element);
    for (const [key, node] of other.nodes) {
      if (node.set.isEmpty()) continue;
      const mine = this.nodes.get(key)?.set;
      if (mine === undefined) this.putChild(key, node.element, node.set.shared());
      else this.mutableChild(key, node.element, mine).addAll(node.set);
    }
  }

  /** This set where another may hold it: itself when frozen, else a copy. */
  private shared(): FieldSet {
    return this.frozen ? this : this.copy();
  }

  /** The child at `key` ready to be added to: a frozen child shared with another set is copied first. */
  private mutableChild(key: string, element: PathElement, set: FieldSet): FieldSet {
    if (!set.frozen) return set;
    const copy = set.copy();
    copy.parent = this;
    this.nodes.set(key, { element, set: copy });
    return copy;
  }

  private assertMutable(): void {
    if (this.frozen) throw new Error('a frozen field set cannot be changed');
  }

  private putMember(key: string, element: PathElement): void {
    this.assertMutable();
    this.members.set(key, element);
    this.markOccupied();
  }

  /** Attaches a fresh set as the child at `key`; an empty one is left out. */
  private putChild(key: string, element: PathElement, set: FieldSet): void {
    if (set.isEmpty()) return;
    this.assertMutable();
    set.parent = this;
    this.nodes.set(key, { element, set });
    this.markOccupied();
  }

  private markOccupied(): void {
    for (let s: FieldSet | undefined = this; s !== undefined && !s.occupied; s = s.parent) s.occupied = true;
  }
}
