import type { JsonApiObject } from '../../api/index.js';

/** A conversion written as code (a `{converter}` rule): the object of one version to the hub's shape and back, in place. */
export interface Converter {
  toHub(obj: JsonApiObject): void;
  fromHub(obj: JsonApiObject): void;
}
