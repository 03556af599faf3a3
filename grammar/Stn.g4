// Stn.g4 — grammar of the .stn stencil language (contract: docs/LANGUAGE.md).
// Precedence, loosest first: ||, &&, comparisons, + -, * / (and the `sum` prefix), unary - !.
// Contextual words (f32, f64, box, star, periodic, clamp, mirror, value, weight and the
// intrinsics) are plain identifiers here and are recognised by the AST builder / sema, so the
// error messages can name them.
grammar Stn;

program : decl* EOF ;

decl
  : 'import' STRING ';'                                         # importDecl
  | 'const' ID '=' '[' expr (',' expr)* ','? ']' ';'            # constArrayDecl
  | 'const' ID '=' expr ';'                                     # constDecl
  | 'def' ID '(' idList? ')' '=' expr ';'                       # defDecl
  | 'offsets' ID '=' '{' offsetEntry (',' offsetEntry)* ','? '}' ';'   # offsetsListDecl
  | 'offsets' ID '=' ID '(' expr ')' ';'                        # offsetsShapeDecl
  | 'stencil' ID '(' idList? ')' (':' ID)? '{' stmt* '}'        # stencilDecl
  | 'group' ID '=' idList ';'                                   # groupDecl
  | ID ID ID scheduleArgs? ';'                                  # scheduleDecl
  ;

offsetEntry : '[' expr (',' expr)* ']' (':' expr)? ;

stmt
  : kind=('in' | 'out' | 'inout') fieldItem (',' fieldItem)* ';'   # fieldStmt
  | 'param' idList ';'                                          # paramStmt
  | 'let' ID '=' expr ';'                                       # letStmt
  | 'swap' ID ',' ID ';'                                        # swapStmt
  | 'boundary' ID ('(' idList ')')? '=' ID ('(' expr ')')? ';'  # boundaryStmt
  | 'region' ID '=' '[' regionRange (',' regionRange)* ']' ';'  # regionStmt
  | ID ('@' ID)? '=' expr ';'                                   # equationStmt
  | ID ('@' ID)? ID scheduleArgs? ';'                           # scheduleStmt
  ;

// schedule [KERNEL] STRATEGY(key = value, ...), and in a stencil schedule @ REGION STRATEGY(...) for one region's
// kernel: `schedule` is checked by sema (a plain identifier here,
// like the other contextual words); values are numbers, words (on, off) or block shapes (32x8 lexes as
// the number 32 and the identifier x8).
scheduleArgs : '(' (scheduleArg (',' scheduleArg)*)? ')' ;
scheduleArg  : key=ID '=' (num=NUMBER dims=ID? | word=ID) ;

// A slice of one axis: lo:hi with lo >= 0 counted from the start and hi <= 0 from the end
// (Python-like; empty = 0), e.g. [4:-4, :, 0:-1].
regionRange : lo=addExpr? ':' hi=addExpr? ;

idList : ID (',' ID)* ;

// A field, or a lower-rank input over some of the stencil's axes: `in c(k), s(i, k);`. Empty lists (a stencil
// or a field without axes) parse, so that sema can say what is missing.
fieldItem : ID (lp='(' idList? ')')? ;

expr    : andExpr ('||' andExpr)* ;
andExpr : cmpExpr ('&&' cmpExpr)* ;
cmpExpr : addExpr (op=('<' | '<=' | '>' | '>=' | '==' | '!=') addExpr)? ;
addExpr : mulExpr (op+=('+' | '-') mulExpr)* ;
mulExpr : unaryExpr (op+=('*' | '/') unaryExpr)* ;

unaryExpr
  : op=('-' | '!') unaryExpr                                    # negExpr
  | 'sum' '(' ID 'in' addExpr '..' addExpr ')' mulExpr          # sumRangeExpr
  | 'sum' '(' ID 'in' ID ')' mulExpr                            # sumOffsetsExpr
  | primary                                                     # primaryExpr
  ;

primary
  : NUMBER                                                      # numberPrim
  | ID '[' expr (',' expr)* ']'                                 # indexPrim
  | 'apply' '(' ID ',' expr ')'                                 # applyPrim
  | ID '(' (expr (',' expr)*)? ')'                              # callPrim
  | ID                                                          # namePrim
  | '(' expr ')'                                                # parenPrim
  ;

NUMBER
  : '0' [xX] HEX+ ('.' HEX*)? [pP] [+-]? DIGIT+
  | '0' [xX] HEX+
  | DIGIT+ ('.' DIGIT+)? ([eE] [+-]? DIGIT+)?
  ;
ID     : [A-Za-z_] [A-Za-z0-9_]* ;
STRING : '"' ~["\r\n]* '"' ;
fragment DIGIT : [0-9] ;
fragment HEX   : [0-9a-fA-F] ;

LINE_COMMENT  : '//' ~[\r\n]* -> skip ;
BLOCK_COMMENT : '/*' .*? '*/' -> skip ;
// A /* that no */ closes: everything to the end of the file, without a */ inside (so a closed comment never
// matches it); the parser rejects the token and the error names it (syntax/Parser.cpp).
UNCLOSED_COMMENT : '/*' (~'*' | '*'+ ~[*/])* '*'* EOF ;
WS            : [ \t\r\n]+ -> skip ;
// Anything else becomes one token that the parser rejects with a located error.
BAD_CHAR : . ;
