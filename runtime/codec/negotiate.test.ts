import { describe, expect, it } from 'vitest';
import {
  MEDIA_JSON,
  MEDIA_JSON_WATCH,
  MEDIA_PROTOBUF,
  MEDIA_PROTOBUF_WATCH,
  MEDIA_TABLE_JSON,
  MEDIA_YAML,
  isTableMediaType,
  negotiate,
  parseMediaType,
} from './index.js';

const GET = [MEDIA_JSON, MEDIA_YAML, MEDIA_PROTOBUF, MEDIA_TABLE_JSON];
const CUSTOM = [MEDIA_JSON, MEDIA_YAML, MEDIA_TABLE_JSON];
const WATCH = [MEDIA_JSON_WATCH, MEDIA_PROTOBUF_WATCH];

describe('negotiate', () => {
  it('answers JSON (the first offer) without an Accept header or for */*', () => {
    expect(negotiate(undefined, GET)).toBe(MEDIA_JSON);
    expect(negotiate('', GET)).toBe(MEDIA_JSON);
    expect(negotiate('*/*', GET)).toBe(MEDIA_JSON);
    expect(negotiate('application/*', GET)).toBe(MEDIA_JSON);
  });

  it('falls back in the order listed: Table then JSON, Protobuf then JSON', () => {
    expect(negotiate('application/json;as=Table;v=v1;g=meta.svc.io, application/json', GET)).toBe(MEDIA_TABLE_JSON);
    expect(negotiate('application/json;as=Table;v=v1;g=meta.svc.io, application/json', [MEDIA_JSON])).toBe(MEDIA_JSON);
    expect(negotiate('application/vnd.svc.protobuf, application/json', GET)).toBe(MEDIA_PROTOBUF);
    expect(negotiate('application/vnd.svc.protobuf, application/json', CUSTOM)).toBe(MEDIA_JSON);
    expect(negotiate('application/yaml, application/json', GET)).toBe(MEDIA_YAML);
  });

  it('matches Table only with as, g and v all agreeing', () => {
    expect(negotiate('application/json;as=Table;g=meta.svc.io;v=v1', GET)).toBe(MEDIA_TABLE_JSON);
    expect(negotiate('application/json;as=Table;g=meta.svc.io;v=v1beta1', GET)).toBeUndefined();
    expect(negotiate('application/json;as=Table', GET)).toBeUndefined();
    expect(negotiate('application/json;as=PartialObjectMetadata;g=meta.svc.io;v=v1', GET)).toBeUndefined();
  });

  it('ignores other parameters (pretty, charset)', () => {
    expect(negotiate('application/json;pretty=true;charset=utf-8', GET)).toBe(MEDIA_JSON);
  });

  it('honours q-values: the highest wins, q=0 excludes even under a wildcard', () => {
    expect(negotiate('application/json;q=0.5, application/vnd.svc.protobuf', GET)).toBe(MEDIA_PROTOBUF);
    expect(negotiate('application/json;q=0, */*', GET)).toBe(MEDIA_YAML);
    expect(negotiate('application/vnd.svc.protobuf;q=0', GET)).toBeUndefined();
    expect(negotiate('*/*;q=0.1, application/yaml;q=0.2', GET)).toBe(MEDIA_YAML);
    expect(negotiate('application/json;q=2', GET)).toBeUndefined();
  });

  it('returns undefined when nothing fits (the server answers 406 naming the offers)', () => {
    expect(negotiate('text/html', GET)).toBeUndefined();
    expect(negotiate('application/vnd.svc.protobuf', CUSTOM)).toBeUndefined();
    expect(negotiate('garbage', GET)).toBeUndefined();
  });

  it('stream=watch: a clause naming it needs a streaming offer; a plain clause accepts one', () => {
    expect(negotiate('application/json', WATCH)).toBe(MEDIA_JSON_WATCH);
    expect(negotiate('application/vnd.svc.protobuf;stream=watch, application/json', WATCH)).toBe(MEDIA_PROTOBUF_WATCH);
    expect(negotiate('application/json;stream=watch', GET)).toBeUndefined();
  });

  it('parses media types with quoted parameters', () => {
    expect(parseMediaType('Application/JSON; AS="Table"; g=meta.svc.io')).toEqual({
      type: 'application',
      subtype: 'json',
      params: { as: 'Table', g: 'meta.svc.io' },
    });
    expect(isTableMediaType(MEDIA_TABLE_JSON)).toBe(true);
    expect(parseMediaType('json')).toBeUndefined();
  });
});
