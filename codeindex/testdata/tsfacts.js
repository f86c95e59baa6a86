// tsfacts.js TYPESCRIPT_MODULE ROOT: the calls of the TypeScript files under ROOT as the
// TypeScript compiler's checker resolves them, as an independent check of codeindex's
// tree-sitter call edges. Prints JSON lines
//   {"call": [callerFile, callerName, callerLine, calleeFile, calleeName, calleeLine]}
// for each call or `new` in a named function, method or function-valued variable, property or
// field whose callee is declared under ROOT as one of those or a class; lines are the names'
// (1-based), files relative to ROOT.
"use strict";
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const root = path.resolve(process.argv[3]);

const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") walk(p);
    } else if (/\.(ts|tsx|mts|cts)$/.test(e.name) && !/\.d\.[mc]?ts$/.test(e.name)) {
      files.push(p);
    }
  }
})(root);

const program = ts.createProgram(files, {
  noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true, jsx: ts.JsxEmit.Preserve,
  types: [],
});
const checker = program.getTypeChecker();

const isFn = (n) => n && (ts.isArrowFunction(n) || ts.isFunctionExpression(n));
// named returns the name node of a definition codeindex extracts, or undefined.
function named(n) {
  if (ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isClassDeclaration(n) ||
      ts.isMethodSignature(n)) return n.name;
  if (ts.isConstructorDeclaration(n)) return n.getChildren().find((c) => c.kind === ts.SyntaxKind.ConstructorKeyword);
  if ((ts.isVariableDeclaration(n) || ts.isPropertyAssignment(n) || ts.isPropertyDeclaration(n)) && isFn(n.initializer)) return n.name;
  return undefined;
}
const rel = (sf) => path.relative(root, sf.fileName).split(path.sep).join("/");
const line = (sf, n) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
const nameOf = (sf, nm) => (nm.kind === ts.SyntaxKind.ConstructorKeyword ? "constructor" : nm.getText(sf));

for (const sf of program.getSourceFiles()) {
  if (!sf.fileName.startsWith(root + path.sep) || sf.isDeclarationFile) continue;
  const visit = (n, caller) => {
    const nm = named(n);
    if (nm && !ts.isClassDeclaration(n)) caller = { name: nameOf(sf, nm), line: line(sf, nm) };
    if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && caller) {
      let e = n.expression;
      if (ts.isPropertyAccessExpression(e)) e = e.name;
      let sym = e && checker.getSymbolAtLocation(e);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const d = sym && (sym.valueDeclaration || (sym.declarations && sym.declarations[0]));
      const dn = d && named(d);
      const dsf = d && d.getSourceFile();
      if (dn && dsf.fileName.startsWith(root + path.sep) && !dsf.isDeclarationFile) {
        console.log(JSON.stringify({ call: [rel(sf), caller.name, caller.line, rel(dsf), nameOf(dsf, dn), line(dsf, dn)] }));
      }
    }
    ts.forEachChild(n, (c) => visit(c, caller));
  };
  visit(sf, null);
}
