#include "graphmend/analysis/self_stores.h"

namespace graphmend::analysis {

SelfStores index_self_stores(const ir::Module& m, const ir::Class& cls) {
  SelfStores out;
  for (const auto& [method, fi] : cls.methods) {
    (void)method;
    syntax::walk(m.functions[static_cast<size_t>(fi)].node.field(field::body), [&](ir::Node n) {
      if (n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
      if (n.is(kind::assignment)) {
        ir::Node left = n.field(field::left);
        if (left.is(kind::attribute) && m.text(left.field(field::object)) == "self" && n.field(field::right)) {
          out[std::string(m.text(left.field(field::attribute)))].push_back({n.field(field::right), false});
        }
      } else if (n.is(kind::call)) {
        ir::Node fn = n.field(field::function);
        ir::Node args = n.field(field::arguments);
        if (fn.is(kind::attribute) && m.text(fn.field(field::attribute)) == "register_buffer" && args &&
            args.named_child_count() >= 2 && args.named_child(0).is(kind::string)) {
          std::string_view lit = m.text(args.named_child(0));
          if (lit.size() >= 2) {
            out[std::string(lit.substr(1, lit.size() - 2))].push_back({args.named_child(1), true});
          }
        }
      }
      return true;
    });
  }
  return out;
}

}  // namespace graphmend::analysis
