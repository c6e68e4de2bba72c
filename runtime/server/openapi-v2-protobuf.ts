/**
 * `/openapi/v2` in the Protobuf type client-go asks for (`OpenAPISchema`, read by `kubectl explain
 * --output plaintext-openapiv2` and by kubectl's and Helm's validation): gnostic's
 * `openapi.v2.Document`, as protobufjs definitions written for this project from the field numbers
 * of gnostic's `openapiv2/OpenAPIv2.proto`. A subset: the swagger version, info and definitions,
 * which is what those readers use (`proto.NewOpenAPIData` reads definitions only); no paths.
 * The server imports this module on the first request for the document: protobufjs is some 45
 * modules that a start need not load (issue 27). The media types are in media.ts.
 */
import protobuf from 'protobufjs';

type Field = { id: number; type: string; rule?: 'repeated' };
const f = (id: number, type: string): Field => ({ id, type });
const many = (id: number, type: string): Field => ({ id, type, rule: 'repeated' });

const root = protobuf.Root.fromJSON({
  nested: {
    openapi: {
      nested: {
        v2: {
          nested: {
            Document: { fields: { swagger: f(1, 'string'), info: f(2, 'Info'), definitions: f(9, 'Definitions') } },
            Info: { fields: { title: f(1, 'string'), version: f(2, 'string') } },
            Definitions: { fields: { additionalProperties: many(1, 'NamedSchema') } },
            NamedSchema: { fields: { name: f(1, 'string'), value: f(2, 'Schema') } },
            Properties: { fields: { additionalProperties: many(1, 'NamedSchema') } },
            Any: { fields: { yaml: f(2, 'string') } },
            NamedAny: { fields: { name: f(1, 'string'), value: f(2, 'Any') } },
            TypeItem: { fields: { value: many(1, 'string') } },
            ItemsItem: { fields: { schema: many(1, 'Schema') } },
            AdditionalPropertiesItem: {
              oneofs: { oneof: { oneof: ['schema', 'boolean'] } },
              fields: { schema: f(1, 'Schema'), boolean: f(2, 'bool') },
            },
            Schema: {
              fields: {
                _ref: f(1, 'string'),
                format: f(2, 'string'),
                title: f(3, 'string'),
                description: f(4, 'string'),
                default: f(5, 'Any'),
                multipleOf: f(6, 'double'),
                maximum: f(7, 'double'),
                exclusiveMaximum: f(8, 'bool'),
                minimum: f(9, 'double'),
                exclusiveMinimum: f(10, 'bool'),
                maxLength: f(11, 'int64'),
                minLength: f(12, 'int64'),
                pattern: f(13, 'string'),
                maxItems: f(14, 'int64'),
                minItems: f(15, 'int64'),
                uniqueItems: f(16, 'bool'),
                maxProperties: f(17, 'int64'),
                minProperties: f(18, 'int64'),
                required: many(19, 'string'),
                enum: many(20, 'Any'),
                additionalProperties: f(21, 'AdditionalPropertiesItem'),
                type: f(22, 'TypeItem'),
                items: f(23, 'ItemsItem'),
                allOf: many(24, 'Schema'),
                properties: f(25, 'Properties'),
                readOnly: f(27, 'bool'),
                example: f(30, 'Any'),
                vendorExtension: many(31, 'NamedAny'),
              },
            },
          },
        },
      },
    },
  },
});
const DOCUMENT = root.lookupType('openapi.v2.Document');

type Json = Record<string, unknown>;

/** A value as gnostic's Any: YAML text (JSON is YAML, and what the readers parse it with accepts it). */
const any = (value: unknown) => ({ yaml: JSON.stringify(value) });

/** Scalar keywords of a schema, the same name in JSON and in the message. */
const SCALARS = [
  'format',
  'title',
  'description',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'readOnly',
];

function schemaMessage(s: Json): Json {
  const m: Json = {};
  for (const key of SCALARS) if (s[key] !== undefined) m[key] = s[key];
  if (typeof s.$ref === 'string') m._ref = s.$ref;
  if (s.default !== undefined) m.default = any(s.default);
  if (s.example !== undefined) m.example = any(s.example);
  if (Array.isArray(s.enum)) m.enum = s.enum.map(any);
  if (typeof s.type === 'string') m.type = { value: [s.type] };
  if (s.items && typeof s.items === 'object') m.items = { schema: [schemaMessage(s.items as Json)] };
  if (Array.isArray(s.allOf)) m.allOf = (s.allOf as Json[]).map(schemaMessage);
  if (s.properties && typeof s.properties === 'object') m.properties = named(s.properties as Record<string, Json>);
  if (typeof s.additionalProperties === 'boolean') m.additionalProperties = { boolean: s.additionalProperties };
  else if (s.additionalProperties && typeof s.additionalProperties === 'object')
    m.additionalProperties = { schema: schemaMessage(s.additionalProperties as Json) };
  const extensions = Object.entries(s).filter(([key]) => key.startsWith('x-'));
  if (extensions.length > 0) m.vendorExtension = extensions.map(([name, value]) => ({ name, value: any(value) }));
  return m;
}

function named(schemas: Record<string, Json>): Json {
  return { additionalProperties: Object.entries(schemas).map(([name, value]) => ({ name, value: schemaMessage(value) })) };
}

/** The Swagger 2.0 document (`swaggerDocument`) as the Protobuf message client-go decodes. */
export function encodeSwaggerProtobuf(doc: Json): Uint8Array {
  const message = {
    swagger: doc.swagger,
    info: doc.info,
    definitions: named((doc.definitions ?? {}) as Record<string, Json>),
  };
  return DOCUMENT.encode(DOCUMENT.fromObject(message)).finish();
}
