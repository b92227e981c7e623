#pragma once
// Private to oracle/actions: the byte layout of declared-schema actions (the schema prologue, and the
// fields after the kind and operator bytes), read with FuzzedDataProvider and written with
// FdpWriter. action_codec.cpp dispatches to it for weights with declared_schemas.

#include <fuzzer/FuzzedDataProvider.h>

#include <vector>

#include "oracle/actions/action.h"
#include "oracle/actions/fdp_writer.h"

namespace dispatch::oracle {

// The operators the prologue declared: what stacks for each are built for.
struct DeclaredOps {
  std::vector<SchemaDecl> decls;
  std::vector<std::vector<ArgType>> intended;  // intendedArgs per operator
  void add(int op, const SchemaDecl& decl);
};

SchemaDecl consumeSchemaDecl(FuzzedDataProvider& in, int op);
void writeSchemaDecl(FdpWriter& out, int op, const SchemaDecl& decl);

// The fields of a declared-schema action of kind a.kind on operator a.op (both already set).
void consumeDeclaredFields(FuzzedDataProvider& in, const DeclaredOps& ops, Action& a);
void writeDeclaredFields(FdpWriter& out, const DeclaredOps& ops, const Action& a);

}  // namespace dispatch::oracle
