import { errorMessage, errors } from "../../core/index.ts";
import { Reader } from "../storage/etcd-proto.ts";

/*
 * Kubernetes protobuf request bodies, for the few kinds clients send that way and the server
 * answers without storing (kubectl's typed clients send a SelfSubjectAccessReview, a
 * SelfSubjectRulesReview, a SelfSubjectReview or a TokenRequest as protobuf): the `k8s\0`
 * envelope (a runtime.Unknown with the type and the raw message) decoded into the JSON object
 * the JSON body would have been. Go's encoder writes every field of a struct, empty ones too, so
 * empty strings, zeros and false are left out as JSON's omitempty leaves them out.
 */

/** A field's type in a message. */
export type ProtoType =
  | "string"
  | "bool"
  | "int"
  | { readonly message: ProtoMessage }
  | { readonly repeated: ProtoType }
  /** `map<string, V>`. */
  | { readonly map: ProtoType };

/** A message's fields by number: the JSON name and the type. */
export type ProtoMessage = Readonly<Record<number, readonly [string, ProtoType]>>;

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** ObjectMeta's fields a request carries (others, such as managedFields, are not read). */
const OBJECT_META: ProtoMessage = {
  1: ["name", "string"],
  2: ["generateName", "string"],
  3: ["namespace", "string"],
  5: ["uid", "string"],
  6: ["resourceVersion", "string"],
  11: ["labels", { map: "string" }],
  12: ["annotations", { map: "string" }],
};

/** A kind's message: metadata (1) and `fields`. */
export function protoKind(fields: ProtoMessage): ProtoMessage {
  return { 1: ["metadata", { message: OBJECT_META }], ...fields };
}

/**
 * Decodes a `application/vnd.kubernetes.protobuf` body of `message`'s kind into its JSON form,
 * with the apiVersion and kind the envelope names. 400 for a body that is not one.
 */
export function decodeProtobufObject(body: Buffer, message: ProtoMessage): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw errors.badRequest(
      "the protobuf body does not start with the Kubernetes envelope's magic number (k8s\\0)",
    );
  }
  try {
    const envelope = new Reader(body, MAGIC.length);
    let typeMeta: Record<string, unknown> = {};
    let raw: Buffer | undefined;
    envelope.fields((field, wire) => {
      if (field === 1 && wire === 2) {
        typeMeta = decode(envelope.sub(), { 1: ["apiVersion", "string"], 2: ["kind", "string"] });
      } else if (field === 2 && wire === 2) {
        raw = envelope.bytes();
      } else return false;
      return true;
    });
    const object = raw === undefined ? {} : decode(new Reader(raw), message);
    return { ...typeMeta, ...object };
  } catch (err) {
    throw errors.badRequest(`the protobuf body could not be decoded: ${errorMessage(err)}`);
  }
}

function decode(r: Reader, message: ProtoMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  r.fields((field, wire) => {
    const spec = message[field];
    if (spec === undefined) return false;
    const [name, type] = spec;
    if (typeof type === "object" && "repeated" in type) {
      out[name] ??= [];
      (out[name] as unknown[]).push(value(r, type.repeated, wire));
      return true;
    }
    if (typeof type === "object" && "map" in type) {
      const entry = decode(r.sub(), { 1: ["key", "string"], 2: ["value", type.map] });
      out[name] ??= {};
      (out[name] as Record<string, unknown>)[String(entry.key ?? "")] =
        entry.value ?? (type.map === "string" ? "" : {});
      return true;
    }
    const v = value(r, type, wire);
    if (v !== "" && v !== 0 && v !== false) out[name] = v;
    return true;
  });
  return out;
}

function value(r: Reader, type: ProtoType, wire: number): unknown {
  if (type === "string") return r.bytes().toString("utf8");
  if (type === "bool") return r.varint() !== 0;
  if (type === "int") return r.varint();
  if ("message" in type) {
    if (wire !== 2) throw new Error(`field of wire type ${wire} where a message was expected`);
    return decode(r.sub(), type.message);
  }
  throw new Error("nested repeated or map fields are not part of these kinds");
}
