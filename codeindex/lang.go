package codeindex

import (
	"path"
	"strings"
)

// A language is how the tree-sitter indexer reads one language: which files are its, one
// query naming the facts (definitions, imports, calls, bases), and the few scope rules its
// resolver needs. Adding a language is a grammar binding in grammar.go and one entry here.
//
// The query's captures name the facts; a pattern holds one of:
//
//	@def.KIND with @name          a definition of kind KIND (Class, Function, …) named by @name
//	@scope with @name             an enclosing scope that is no definition (a Rust impl block):
//	                              what it holds is named under it
//	@import with @import.path     an import of a module, and optionally @import.name (one name of
//	                              it), @import.alias (the local name) and @import.wildcard
//	@import.default               the local name of a JavaScript default import
//	@import.tree                  a Rust use tree, expanded by the resolver
//	@call with @call.name         a call, and optionally @call.recv (what it is called on)
//	@base                         a supertype named in the header of the enclosing definition
//	@package                      the package or namespace the file declares
//
// Captures starting with "_" only serve predicates.
type language struct {
	name  string   // as stored in File.language
	exts  []string // file name extensions, without the dot
	query string
	sep   string // joins the parts of a fully qualified name
	// module gives the prefix of the fully qualified names of a file's top-level definitions.
	module func(rel, pkg string) string
	// selfNames are the receivers that mean the enclosing class (self, this).
	selfNames []string
	// implicitSelf: a bare call may name a member of the enclosing class (Java, C#, Ruby, C++).
	implicitSelf bool
	// packageScope: a bare name may be a top-level definition of another file of the same
	// package or namespace (Java, Kotlin, C#, PHP).
	packageScope bool
	// globalFuncs: a bare call may name the one function of that name defined anywhere in the
	// tree (C and C++ external linkage; Ruby's global methods).
	globalFuncs bool
	// globalTypes: a type name is visible everywhere once defined (Ruby constants, C/C++
	// after an include, which we do not track).
	globalTypes bool
}

// isClass says whether definitions of kind k hold members: a function in one is a method,
// and its members are reached through it (Class.f, self.f).
func isClass(k string) bool {
	switch k {
	case "Class", "Interface", "Struct", "Trait", "Enum", "Object", "Union":
		return true
	}
	return false
}

func stripExt(rel string) string { return strings.TrimSuffix(rel, path.Ext(rel)) }

// pythonModule is the dotted module name of a file: a/b/c.py is a.b.c, a/b/__init__.py is a.b.
func pythonModule(rel, _ string) string {
	m := stripExt(rel)
	m = strings.TrimSuffix(strings.TrimSuffix(m, "/__init__"), "__init__")
	return strings.ReplaceAll(m, "/", ".")
}

func pathModule(rel, _ string) string { return stripExt(rel) }

func packageModule(_, pkg string) string { return pkg }

func noModule(_, _ string) string { return "" }

// rustModule is the module path of a file within its crate: src/a/b.rs is crate::a::b,
// src/lib.rs, src/main.rs and src/a/mod.rs are crate and crate::a.
func rustModule(rel, _ string) string {
	p := stripExt(rel)
	if i := strings.LastIndex("/"+p, "/src/"); i >= 0 {
		p = p[i+4:]
	}
	parts := strings.Split(p, "/")
	if last := parts[len(parts)-1]; last == "lib" || last == "main" || last == "mod" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(append([]string{"crate"}, parts...), "::")
}

// rustCrate is the directory of the crate a file belongs to: what comes before its last
// src/ directory.
func rustCrate(rel string) string {
	if i := strings.LastIndex("/"+rel, "/src/"); i >= 0 {
		return strings.TrimSuffix(rel[:i], "/")
	}
	return path.Dir(rel)
}

const jsCalls = `
(call_expression function: (identifier) @call.name) @call
(call_expression function: (member_expression object: (_) @call.recv property: [(property_identifier) (private_property_identifier)] @call.name)) @call
(new_expression constructor: (identifier) @call.name) @call
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier)? @import.alias))) source: (string (string_fragment) @import.path)) @import
(import_statement (import_clause (identifier) @import.default) source: (string (string_fragment) @import.path)) @import
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.path)) @import
(lexical_declaration (variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.path) .))) (#eq? @_req "require")) @import
(variable_declaration (variable_declarator name: (identifier) @import.alias value: (call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import.path) .))) (#eq? @_req "require")) @import
(function_declaration name: (identifier) @name) @def.Function
(generator_function_declaration name: (identifier) @name) @def.Function
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.Method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) ) @def.Function
(variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) ) @def.Function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def.Function
`

// languages lists every language the tree-sitter indexer reads, in a fixed order.
func languages() []*language {
	return []*language{
		{name: "python", exts: []string{"py", "pyi"}, sep: ".", module: pythonModule, selfNames: []string{"self", "cls"}, query: `
(class_definition name: (identifier) @name) @def.Class
(function_definition name: (identifier) @name) @def.Function
(class_definition superclasses: (argument_list [(identifier) (attribute)] @base))
(import_statement name: (dotted_name) @import.path) @import
(import_statement name: (aliased_import name: (dotted_name) @import.path alias: (identifier) @import.alias)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.path name: (dotted_name) @import.name) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.path name: (aliased_import name: (dotted_name) @import.name alias: (identifier) @import.alias)) @import
(import_from_statement module_name: [(dotted_name) (relative_import)] @import.path (wildcard_import) @import.wildcard) @import
(call function: (identifier) @call.name) @call
(call function: (attribute object: (_) @call.recv attribute: (identifier) @call.name)) @call
`},
		{name: "typescript", exts: []string{"ts", "mts", "cts"}, sep: ".", module: pathModule, selfNames: []string{"this"}, query: tsQuery},
		{name: "tsx", exts: []string{"tsx"}, sep: ".", module: pathModule, selfNames: []string{"this"}, query: tsQuery},
		{name: "javascript", exts: []string{"js", "jsx", "mjs", "cjs"}, sep: ".", module: pathModule, selfNames: []string{"this"}, query: jsCalls + `
(class_declaration name: (identifier) @name) @def.Class
(field_definition property: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression)]) @def.Method
(class_heritage (identifier) @base)
(class_heritage (member_expression) @base)
`},
		{name: "java", exts: []string{"java"}, sep: ".", module: packageModule, selfNames: []string{"this"}, implicitSelf: true, packageScope: true, query: `
(package_declaration [(scoped_identifier) (identifier)] @package)
(class_declaration name: (identifier) @name) @def.Class
(interface_declaration name: (identifier) @name) @def.Interface
(enum_declaration name: (identifier) @name) @def.Enum
(record_declaration name: (identifier) @name) @def.Class
(annotation_type_declaration name: (identifier) @name) @def.Interface
(method_declaration name: (identifier) @name) @def.Method
(constructor_declaration name: (identifier) @name) @def.Constructor
(superclass [(type_identifier) (generic_type (type_identifier)) (scoped_type_identifier)] @base)
(super_interfaces (type_list [(type_identifier) (generic_type (type_identifier)) (scoped_type_identifier)] @base))
(extends_interfaces (type_list [(type_identifier) (generic_type (type_identifier)) (scoped_type_identifier)] @base))
(import_declaration [(scoped_identifier) (identifier)] @import.path) @import
(method_invocation object: (_) @call.recv name: (identifier) @call.name) @call
(method_invocation !object name: (identifier) @call.name) @call
(object_creation_expression type: (type_identifier) @call.name) @call
`},
		{name: "rust", exts: []string{"rs"}, sep: "::", module: rustModule, selfNames: []string{"self", "Self"}, query: `
(function_item name: (identifier) @name) @def.Function
(function_signature_item name: (identifier) @name) @def.Function
(struct_item name: (type_identifier) @name) @def.Struct
(enum_item name: (type_identifier) @name) @def.Enum
(union_item name: (type_identifier) @name) @def.Union
(trait_item name: (type_identifier) @name) @def.Trait
(type_item name: (type_identifier) @name) @def.Type
(mod_item name: (identifier) @name) @def.Module
(macro_definition name: (identifier) @name) @def.Macro
(const_item name: (identifier) @name) @def.Constant
(static_item name: (identifier) @name) @def.Variable
(impl_item type: [(type_identifier) (generic_type type: (type_identifier)) (scoped_type_identifier)] @name) @scope
(impl_item trait: [(type_identifier) (generic_type type: (type_identifier)) (scoped_type_identifier)] @base)
(trait_item bounds: (trait_bounds [(type_identifier) (generic_type type: (type_identifier)) (scoped_type_identifier)] @base))
(use_declaration argument: (_) @import.tree) @import
(call_expression function: (identifier) @call.name) @call
(call_expression function: (scoped_identifier path: (_) @call.recv name: (identifier) @call.name)) @call
(call_expression function: (field_expression value: (_) @call.recv field: (field_identifier) @call.name)) @call
(call_expression function: (generic_function function: (identifier) @call.name)) @call
`},
		{name: "c", exts: []string{"c", "h"}, sep: "::", module: noModule, globalFuncs: true, globalTypes: true, query: cQuery},
		{name: "cpp", exts: []string{"cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++"}, sep: "::", module: noModule, selfNames: []string{"this"},
			implicitSelf: true, globalFuncs: true, globalTypes: true, query: cQuery + `
(class_specifier name: [(type_identifier) (qualified_identifier)] @name body: (_)) @def.Class
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @def.Namespace
(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @base)
(function_definition declarator: (function_declarator declarator: [(qualified_identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @def.Function
(function_definition declarator: (reference_declarator (function_declarator declarator: [(qualified_identifier) (field_identifier) (operator_name)] @name))) @def.Function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: [(qualified_identifier) (field_identifier)] @name))) @def.Function
(call_expression function: (qualified_identifier scope: (_) @call.recv name: (identifier) @call.name)) @call
(call_expression function: (field_expression argument: (_) @call.recv field: (field_identifier) @call.name)) @call
`},
		{name: "ruby", exts: []string{"rb"}, sep: "::", module: noModule, selfNames: []string{"self"}, implicitSelf: true, globalFuncs: true, globalTypes: true, query: `
(class name: [(constant) (scope_resolution)] @name) @def.Class
(module name: [(constant) (scope_resolution)] @name) @def.Module
(method name: (_) @name) @def.Method
(singleton_method name: (_) @name) @def.Method
(class superclass: (superclass [(constant) (scope_resolution)] @base))
(call method: (identifier) @_inc arguments: (argument_list [(constant) (scope_resolution)] @base) (#match? @_inc "^(include|extend|prepend)$"))
(call method: (identifier) @_req arguments: (argument_list . (string (string_content) @import.path) .) (#match? @_req "^require(_relative)?$")) @import
(call receiver: (_) @call.recv method: (identifier) @call.name) @call
(call !receiver method: (identifier) @call.name) @call
`},
		{name: "csharp", exts: []string{"cs"}, sep: ".", module: packageModule, selfNames: []string{"this", "base"}, implicitSelf: true, packageScope: true, query: `
(file_scoped_namespace_declaration name: (_) @package)
(namespace_declaration name: (_) @name) @def.Namespace
(class_declaration name: (identifier) @name) @def.Class
(interface_declaration name: (identifier) @name) @def.Interface
(struct_declaration name: (identifier) @name) @def.Struct
(enum_declaration name: (identifier) @name) @def.Enum
(record_declaration name: (identifier) @name) @def.Class
(method_declaration name: (identifier) @name) @def.Method
(constructor_declaration name: (identifier) @name) @def.Constructor
(property_declaration name: (identifier) @name) @def.Property
(base_list [(identifier) (qualified_name) (generic_name (identifier))] @base)
(using_directive [(qualified_name) (identifier)] @import.path) @import
(invocation_expression function: (identifier) @call.name) @call
(invocation_expression function: (member_access_expression expression: (_) @call.recv name: (identifier) @call.name)) @call
(object_creation_expression type: (identifier) @call.name) @call
`},
		{name: "kotlin", exts: []string{"kt", "kts"}, sep: ".", module: packageModule, selfNames: []string{"this"}, implicitSelf: true, packageScope: true, query: `
(package_header (qualified_identifier) @package)
(class_declaration name: (identifier) @name) @def.Class
(class_declaration "interface" name: (identifier) @name) @def.Interface
(class_declaration (modifiers (class_modifier) @_m) name: (identifier) @name (#eq? @_m "enum")) @def.Enum
(object_declaration name: (identifier) @name) @def.Object
(function_declaration name: (identifier) @name) @def.Function
(delegation_specifier (user_type . (identifier) @base .))
(delegation_specifier (constructor_invocation (user_type . (identifier) @base .)))
(import (qualified_identifier) @import.path) @import
(call_expression . (identifier) @call.name) @call
(call_expression . (navigation_expression (_) @call.recv . (identifier) @call.name .)) @call
`},
		{name: "php", exts: []string{"php"}, sep: "\\", module: packageModule, selfNames: []string{"$this", "self", "static", "parent"}, packageScope: true, query: `
(namespace_definition name: (namespace_name) @package)
(class_declaration name: (name) @name) @def.Class
(interface_declaration name: (name) @name) @def.Interface
(trait_declaration name: (name) @name) @def.Trait
(enum_declaration name: (name) @name) @def.Enum
(function_definition name: (name) @name) @def.Function
(method_declaration name: (name) @name) @def.Method
(base_clause [(name) (qualified_name)] @base)
(class_interface_clause [(name) (qualified_name)] @base)
(use_declaration [(name) (qualified_name)] @base)
(namespace_use_clause [(qualified_name) (name)] @import.path alias: (name)? @import.alias) @import
(function_call_expression function: [(name) (qualified_name)] @call.name) @call
(member_call_expression object: (_) @call.recv name: (name) @call.name) @call
(scoped_call_expression scope: (_) @call.recv name: (name) @call.name) @call
(object_creation_expression [(name) (qualified_name)] @call.name) @call
`},
		{name: "scala", exts: []string{"scala", "sc"}, sep: ".", module: packageModule, selfNames: []string{"this"}, implicitSelf: true, packageScope: true, query: `
(package_clause name: (package_identifier) @package)
(class_definition name: (identifier) @name) @def.Class
(trait_definition name: (identifier) @name) @def.Trait
(object_definition name: (identifier) @name) @def.Object
(function_definition name: (identifier) @name) @def.Function
(function_declaration name: (identifier) @name) @def.Function
(extends_clause type: [(type_identifier) (generic_type type: (type_identifier))] @base)
(import_declaration) @import @import.path
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression value: (_) @call.recv field: (identifier) @call.name)) @call
(instance_expression (type_identifier) @call.name) @call
`},
		{name: "bash", exts: []string{"sh", "bash"}, sep: ".", module: noModule, globalFuncs: true, query: `
(function_definition name: (word) @name) @def.Function
(command name: (command_name (word) @_src) argument: [(word) (string (string_content)) (raw_string)] @import.path (#match? @_src "^(source|[.])$")) @import
(command name: (command_name (word) @call.name)) @call
`},
		{name: "lua", exts: []string{"lua"}, sep: ".", module: pythonModule, selfNames: []string{"self"}, query: `
(function_declaration name: [(identifier) (dot_index_expression) (method_index_expression)] @name) @def.Function
(assignment_statement (variable_list . name: [(identifier) (dot_index_expression)] @name .) (expression_list . value: (function_definition) .)) @def.Function
(variable_declaration (assignment_statement (variable_list name: (identifier) @import.alias) (expression_list value: (function_call name: (identifier) @_req arguments: (arguments . (string content: (string_content) @import.path) .)))) (#eq? @_req "require")) @import
(function_call name: (identifier) @call.name) @call
(function_call name: (dot_index_expression table: (_) @call.recv field: (identifier) @call.name)) @call
(function_call name: (method_index_expression table: (_) @call.recv method: (identifier) @call.name)) @call
`},
		{name: "zig", exts: []string{"zig"}, sep: ".", module: pythonModule, selfNames: []string{"self"}, query: `
(function_declaration name: (identifier) @name) @def.Function
(variable_declaration (identifier) @name (struct_declaration)) @def.Struct
(variable_declaration (identifier) @name (enum_declaration)) @def.Enum
(variable_declaration (identifier) @name (union_declaration)) @def.Union
(variable_declaration (identifier) @import.alias (builtin_function (builtin_identifier) @_b (arguments (string (string_content) @import.path))) (#eq? @_b "@import")) @import
(call_expression function: (identifier) @call.name) @call
(call_expression function: (field_expression object: (_) @call.recv member: (identifier) @call.name)) @call
`},
		{name: "hcl", exts: []string{"tf", "hcl", "tfvars"}, sep: ".", module: noModule, query: `
((block (identifier) @_k . (string_lit (template_literal) @name)) @def.Variable (#eq? @_k "variable"))
((block (identifier) @_k . (string_lit (template_literal) @name)) @def.Output (#eq? @_k "output"))
((block (identifier) @_k . (string_lit (template_literal) @name)) @def.Module (#eq? @_k "module"))
((block (identifier) @_k . (string_lit (template_literal) @name)) @def.Provider (#eq? @_k "provider"))
((block (identifier) @_k . (string_lit) . (string_lit (template_literal) @name)) @def.Resource (#eq? @_k "resource"))
((block (identifier) @_k . (string_lit) . (string_lit (template_literal) @name)) @def.Data (#eq? @_k "data"))
`},
	}
}

const tsQuery = jsCalls + `
(class_declaration name: (type_identifier) @name) @def.Class
(abstract_class_declaration name: (type_identifier) @name) @def.Class
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression)]) @def.Method
(interface_declaration name: (type_identifier) @name) @def.Interface
(type_alias_declaration name: (type_identifier) @name) @def.Type
(enum_declaration name: (identifier) @name) @def.Enum
(internal_module name: (identifier) @name) @def.Namespace
(method_signature name: (property_identifier) @name) @def.Method
(abstract_method_signature name: (property_identifier) @name) @def.Method
(extends_clause value: [(identifier) (member_expression)] @base)
(implements_clause [(type_identifier) (generic_type name: (type_identifier))] @base)
(extends_type_clause type: [(type_identifier) (generic_type name: (type_identifier))] @base)
`

const cQuery = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.Function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.Function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @def.Function
(struct_specifier name: (type_identifier) @name body: (_)) @def.Struct
(union_specifier name: (type_identifier) @name body: (_)) @def.Union
(enum_specifier name: (type_identifier) @name body: (_)) @def.Enum
(type_definition declarator: (type_identifier) @name) @def.Type
(preproc_function_def name: (identifier) @name) @def.Macro
(preproc_def name: (identifier) @name) @def.Macro
(preproc_include path: [(string_literal (string_content) @import.path) (system_lib_string) @import.path]) @import
(call_expression function: (identifier) @call.name) @call
`
