/**
 * OTLP trace messages in protobuf, read and written by protobufjs (the
 * decoder is the library's; see docs/adr/0007-otlp-receiver-protobuf-and-batches.md).
 *
 * The schema below is the trace subset of the official opentelemetry-proto
 * v1 definitions (collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
 * common/v1/common.proto, resource/v1/resource.proto) and google/rpc/status.proto,
 * with the official message names and field numbers, in one package. Fields it
 * leaves out (a resource's entity refs, newer additions) are unknown fields to
 * the decoder and skipped, as protobuf intends. A wrong number would fail the
 * tests that decode what the official JS exporter encodes.
 */
import { createRequire } from 'node:module';
import type { Type } from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}

message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;

  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
}
message Status {
  reserved 1;
  string message = 2;
  int32 code = 3;
}

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}

message Any { string type_url = 1; bytes value = 2; }
message RpcStatus {
  int32 code = 1;
  string message = 2;
  repeated Any details = 3;
}
`;

interface OtlpTypes {
  request: Type;
  response: Type;
  status: Type;
}

let types: OtlpTypes | null = null;

/**
 * The messages, parsed on first use: protobufjs (~10 MB of a process's memory) is loaded by a process that
 * receives OTLP/HTTP (tb serve, the app), not by every tb command that imports this module with the rest.
 * Span kind and status code are enums in the official files; read as int32 (the same varint on the wire) they
 * come out as the numbers OTLP/JSON writes, whatever value a newer SDK adds.
 */
function otlpTypes(): OtlpTypes {
  if (types) return types;
  const protobuf = createRequire(import.meta.url)('protobufjs') as typeof import('protobufjs');
  const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;
  types = {
    request: root.lookupType('opentelemetry.proto.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.ExportTraceServiceResponse'),
    status: root.lookupType('opentelemetry.proto.RpcStatus'),
  };
  return types;
}

/** Fields holding trace or span ids: OTLP/JSON writes them as lowercase hex, not base64. */
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Base64 → hex for id fields anywhere in a decoded message (spans and links). */
function hexIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(hexIds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = ID_FIELDS.has(k) && typeof v === 'string' ? Buffer.from(v, 'base64').toString('hex') : hexIds(v);
  }
  return out;
}

/**
 * A protobuf ExportTraceServiceRequest as the OTLP/JSON object the file
 * importer reads: camelCase fields, ids in hex, 64-bit integers as decimal
 * strings, bytes values in base64. Throws on bytes that are not the message.
 */
export function decodeTraceRequest(bytes: Uint8Array): Record<string, unknown> {
  const { request } = otlpTypes();
  const message = request.decode(bytes);
  const object = request.toObject(message, { longs: String, bytes: String, defaults: false, arrays: false });
  return hexIds(object) as Record<string, unknown>;
}

export function encodeTraceResponse(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  const body = partial ? { partialSuccess: { rejectedSpans: partial.rejectedSpans, errorMessage: partial.errorMessage } } : {};
  const { response } = otlpTypes();
  return response.encode(response.fromObject(body)).finish();
}

/** google.rpc.Status, the body of an OTLP/HTTP error response. */
export function encodeRpcStatus(code: number, message: string): Uint8Array {
  const { status } = otlpTypes();
  return status.encode(status.fromObject({ code, message })).finish();
}
