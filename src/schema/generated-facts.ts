/**
 * Per-field facts of Kubernetes' Go types, generated from the pinned release by
 * scripts/gen-api-facts.ts (src/generated/api-facts.ts): the wire (number, type) and what the
 * .proto files do not carry (JSON rules, list and map semantics, required fields, enums).
 */
export interface GeneratedFieldFacts {
  number: number;
  /** A scalar proto type, or a message's full name. */
  type: string;
  repeated?: true;
  /** map<keyType, type>. */
  keyType?: string;
  /** A Go pointer: absent when nil, its zero value written when set. */
  pointer?: true;
  /** json:",omitempty". */
  omitempty?: true;
  /** json:",omitzero": a struct (metav1.Time) left out when zero. */
  omitzero?: true;
  /** An embedded struct (json:",inline"): a message of its own in protobuf, its fields in the embedding object in JSON. */
  inline?: true;
  /** Go's zero value is nil (slice, map, pointer): written as null when there is no omitempty. */
  nilable?: true;
  /** Required in the OpenAPI schema (no omitempty and no +optional, or +required). */
  required?: true;
  /** struct tag patchStrategy ("merge", "replace", "retainKeys", "merge,retainKeys"). */
  patchStrategy?: string;
  /** struct tag patchMergeKey. */
  patchMergeKey?: string;
  /** +listType: atomic | set | map. */
  listType?: 'atomic' | 'set' | 'map';
  /** +listMapKey (in order). */
  listMapKeys?: string[];
  /** +mapType. */
  mapType?: 'atomic' | 'granular';
  /** +structType, the field's own or its type's. */
  structType?: 'atomic' | 'granular';
  /** +enum: the allowed string values (of each item of a list, each value of a map). */
  enum?: string[];
  /** +default. */
  default?: unknown;
}
