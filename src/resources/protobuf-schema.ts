import { PROTO_KINDS, PROTO_LIST_MESSAGES, PROTO_MESSAGES } from "./protobuf-table.ts";

/**
 * The protobuf messages of the built-in kinds, compiled from the generated table
 * (protobuf-table.ts, the only place that knows field numbers) into the form the codec walks:
 * fields in ascending number — the order Go's generated marshallers write them — with their
 * JSON names and the Go facts that decide what an empty field means.
 */

/** A scalar field's proto type. */
export type ProtoScalar = "string" | "bool" | "int32" | "int64" | "bytes";

/**
 * Messages whose Go type marshals by hand, and what their JSON is: an RFC 3339 time (`time`,
 * seconds; `microTime`, microseconds), a Go duration string, a managed-fields set (its raw
 * JSON), a quantity string, an int or a string, an embedded object, or a named slice's array.
 */
export type ProtoSpecial =
  | "time"
  | "microTime"
  | "duration"
  | "fieldsV1"
  | "quantity"
  | "intOrString"
  | "rawExtension"
  | "list";

const META = "k8s.io.apimachinery.pkg.apis.meta.v1";
const SPECIAL: Readonly<Record<string, ProtoSpecial>> = {
  [`${META}.Time`]: "time",
  [`${META}.MicroTime`]: "microTime",
  [`${META}.Duration`]: "duration",
  [`${META}.FieldsV1`]: "fieldsV1",
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intOrString",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "rawExtension",
};

export interface ProtoField {
  readonly no: number;
  /** The JSON name; "" for a Go embedded struct whose fields are the parent's (`inline`). */
  readonly json: string;
  /** The scalar type, or undefined for a message field. */
  readonly scalar: ProtoScalar | undefined;
  readonly repeated: boolean;
  /** A `map<string, V>`: entries of key (1) and value (2), V being this field's type. */
  readonly map: boolean;
  /** Go holds it behind a pointer: written only when set, and a set zero is kept. */
  readonly pointer: boolean;
  /**
   * Go's JSON writes it at its zero too (held by value, no `omitempty`): a scalar, or a time,
   * duration, quantity or int-or-string, decoded to its zero rather than left out.
   */
  readonly zeroWritten: boolean;
  /** The wire type one value of it arrives in: 0 (varint) or 2 (length-delimited). */
  readonly wire: 0 | 2;
  /** The message type of a message field. */
  readonly message: ProtoMessage | undefined;
}

export interface ProtoMessage {
  readonly name: string;
  /** Ascending by number. */
  readonly fields: readonly ProtoField[];
  /** `fields` indexed by number. */
  readonly byNumber: readonly (ProtoField | undefined)[];
  readonly special: ProtoSpecial | undefined;
}

const compiled = new Map<string, ProtoMessage>();

/** A message of the table by its full name (`k8s.io.api.core.v1.Pod`), or undefined. */
export function protoMessage(name: string): ProtoMessage | undefined {
  const done = compiled.get(name);
  if (done !== undefined) return done;
  const entries = PROTO_MESSAGES[name];
  if (entries === undefined) return undefined;
  const fields: { -readonly [K in keyof ProtoField]: ProtoField[K] }[] = [];
  const byNumber: (ProtoField | undefined)[] = [];
  const special = SPECIAL[name] ?? (PROTO_LIST_MESSAGES.includes(name) ? "list" : undefined);
  const message: ProtoMessage = { name, fields, byNumber, special };
  // Registered before its fields resolve their types, so a message that reaches itself
  // (JSONSchemaProps-like recursion) finds this one.
  compiled.set(name, message);
  for (const [no, json, type, flags] of entries) {
    const scalar = type.includes(".") ? undefined : (type as ProtoScalar);
    const field: (typeof fields)[number] = {
      no,
      json,
      scalar,
      repeated: flags.includes("r"),
      map: flags.includes("m"),
      pointer: flags.includes("p"),
      zeroWritten: flags.includes("w"),
      wire: scalar === undefined || scalar === "string" || scalar === "bytes" ? 2 : 0,
      message: undefined,
    };
    fields.push(field);
    byNumber[no] = field;
  }
  // Resolved after registration (see above); the table is closed over the types it reaches.
  entries.forEach(([, , type], i) => {
    if (type.includes(".")) {
      fields[i]!.message = protoMessage(type);
    }
  });
  return message;
}

/** The message of a kind (`apps/v1`, `Deployment`), or undefined where it has none. */
export function kindMessage(apiVersion: string, kind: string): ProtoMessage | undefined {
  const slash = apiVersion.indexOf("/");
  const group = slash < 0 ? "" : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const name = PROTO_KINDS[`${group}/${version}/${kind}`];
  return name === undefined ? undefined : protoMessage(name);
}
