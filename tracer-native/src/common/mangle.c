/* Itanium C++ ABI name parsing, reduced to what kernel parameter decoding needs (see mangle.h).
 * Grammar references are to the Itanium C++ ABI, section 5.1 "External Names". */
#include "mangle.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_SUBS 64
#define MAX_TARGS 32

typedef mangle_param type_desc;

typedef struct {
    const char *s;          /* cursor */
    bool bad;
    type_desc subs[MAX_SUBS]; /* substitution candidates, in order (S_, S0_, S1_, ...) */
    int nsubs;
    type_desc targs[MAX_TARGS]; /* template arguments of the last template-args seen (T_, T0_, ...) */
    int ntargs;
    bool targs_final; /* the function's own template arguments are known: T_ refers to them */
} parser;

static void fail(parser *p) { p->bad = true; }

/* Appends `s` to the type text in `dst` (MANGLE_TYPE_TEXT bytes), cutting what does not fit:
 * the text is for people reading a trace, the kind and size are what decoding relies on. */
static void append(char *dst, const char *s) {
    size_t len = strnlen(dst, MANGLE_TYPE_TEXT - 1);
    size_t n = strlen(s);
    if (n > MANGLE_TYPE_TEXT - 1 - len) n = MANGLE_TYPE_TEXT - 1 - len;
    memcpy(dst + len, s, n);
    dst[len + n] = '\0';
}

static void set_text(type_desc *t, const char *a, const char *b) {
    t->text[0] = '\0';
    append(t->text, a);
    append(t->text, b);
}

static void add_sub(parser *p, const type_desc *t) {
    if (p->nsubs < MAX_SUBS) p->subs[p->nsubs++] = *t;
}

/* <number> ::= [n] <non-negative decimal integer> */
static long number(parser *p) {
    long v = 0;
    if (*p->s < '0' || *p->s > '9') { fail(p); return 0; }
    while (*p->s >= '0' && *p->s <= '9') v = v * 10 + (*p->s++ - '0');
    return v;
}

/* <seq-id>_: base-36 index + 1, or just "_" for index 0. */
static int seq_id(parser *p) {
    if (*p->s == '_') { p->s++; return 0; }
    long v = 0;
    while ((*p->s >= '0' && *p->s <= '9') || (*p->s >= 'A' && *p->s <= 'Z')) {
        v = v * 36 + (*p->s <= '9' ? *p->s - '0' : *p->s - 'A' + 10);
        p->s++;
    }
    if (*p->s != '_') { fail(p); return 0; }
    p->s++;
    return (int)v + 1;
}

static void type(parser *p, type_desc *out);
static void name(parser *p, type_desc *out, bool *is_template);

static bool builtin(parser *p, type_desc *t) {
    static const struct { char code; uint32_t size; const char *text; } table[] = {
        {'v', 0, "void"}, {'w', 4, "wchar_t"}, {'b', 1, "bool"}, {'c', 1, "char"},
        {'a', 1, "signed char"}, {'h', 1, "unsigned char"}, {'s', 2, "short"},
        {'t', 2, "unsigned short"}, {'i', 4, "int"}, {'j', 4, "unsigned int"}, {'l', 8, "long"},
        {'m', 8, "unsigned long"}, {'x', 8, "long long"}, {'y', 8, "unsigned long long"},
        {'n', 16, "__int128"}, {'o', 16, "unsigned __int128"}, {'f', 4, "float"},
        {'d', 8, "double"}, {'e', 16, "long double"}, {'g', 16, "__float128"}, {'z', 0, "..."},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (*p->s == table[i].code) {
            p->s++;
            t->kind = MANGLE_SCALAR;
            t->size = table[i].size;
            set_text(t, table[i].text, "");
            return true;
        }
    }
    if (p->s[0] == 'D') {
        static const struct { const char *code; uint32_t size; const char *text; } dt[] = {
            {"Dn", 8, "decltype(nullptr)"}, {"Di", 4, "char32_t"}, {"Ds", 2, "char16_t"},
            {"Du", 1, "char8_t"}, {"Dh", 2, "half"},
        };
        for (size_t i = 0; i < sizeof dt / sizeof dt[0]; i++) {
            if (strncmp(p->s, dt[i].code, 2) == 0) {
                p->s += 2;
                t->kind = MANGLE_SCALAR;
                t->size = dt[i].size;
                set_text(t, dt[i].text, "");
                return true;
            }
        }
        if (p->s[1] == 'F') { /* DF <bits> _ : _FloatN */
            p->s += 2;
            long bits = number(p);
            if (*p->s++ != '_') fail(p);
            t->kind = MANGLE_SCALAR;
            t->size = (uint32_t)(bits / 8);
            snprintf(t->text, sizeof t->text, "_Float%ld", bits);
            return true;
        }
    }
    return false;
}

/* <source-name> ::= <length> <identifier> */
static void source_name(parser *p, char *text, size_t cap) {
    long n = number(p);
    if (p->bad || n <= 0 || (long)strnlen(p->s, (size_t)n) < n) { fail(p); return; }
    snprintf(text, cap, "%.*s", (int)n, p->s);
    p->s += n;
}

/* <template-args> ::= I <template-arg>+ E; each argument becomes a template parameter (T_...). */
static void template_args(parser *p, type_desc *owner) {
    type_desc args[MAX_TARGS];
    int n = 0;
    p->s++; /* I */
    while (!p->bad && *p->s != 'E' && *p->s) {
        type_desc a = {0};
        if (*p->s == 'L') { /* <expr-primary> ::= L <type> <value> E  |  L _Z <encoding> E */
            p->s++;
            if (p->s[0] == '_' && p->s[1] == 'Z') { fail(p); return; }
            type(p, &a);
            while (*p->s && *p->s != 'E') p->s++;
            if (*p->s == 'E') p->s++;
        } else if (*p->s == 'J') { /* argument pack */
            p->s++;
            while (!p->bad && *p->s && *p->s != 'E') { type_desc skip; type(p, &skip); }
            if (*p->s == 'E') p->s++;
            a.kind = MANGLE_AGGREGATE;
            set_text(&a, "pack", "");
        } else if (*p->s == 'X') {
            fail(p); /* expressions are beyond this parser */
            return;
        } else {
            type(p, &a);
        }
        if (n < MAX_TARGS) args[n++] = a;
    }
    if (*p->s != 'E') { fail(p); return; }
    p->s++;
    if (!p->targs_final) {
        memcpy(p->targs, args, sizeof(type_desc) * (size_t)n);
        p->ntargs = n;
    }
    append(owner->text, "<>");
}

static void substitution(parser *p, type_desc *t) {
    p->s++; /* S */
    static const struct { char code; const char *text; } std_abbrev[] = {
        {'t', "std"}, {'a', "std::allocator"}, {'b', "std::basic_string"}, {'s', "std::string"},
        {'i', "std::istream"}, {'o', "std::ostream"}, {'d', "std::iostream"},
    };
    for (size_t i = 0; i < sizeof std_abbrev / sizeof std_abbrev[0]; i++) {
        if (*p->s == std_abbrev[i].code) {
            p->s++;
            t->kind = MANGLE_AGGREGATE;
            t->size = 0;
            set_text(t, std_abbrev[i].text, "");
            return;
        }
    }
    int idx = seq_id(p);
    if (p->bad || idx >= p->nsubs) { fail(p); return; }
    *t = p->subs[idx];
}

/* <unqualified-name> (source names, and the few operator and ctor forms that can name kernels). */
static void unqualified_name(parser *p, char *text, size_t cap) {
    if (*p->s == 'L') p->s++; /* internal linkage (GCC's extension; nvcc uses it for static kernels) */
    if (*p->s >= '0' && *p->s <= '9') {
        source_name(p, text, cap);
    } else if (p->s[0] == 'U' && p->s[1] == 't') { /* unnamed type: Ut [<number>] _ */
        p->s += 2;
        while (*p->s && *p->s != '_') p->s++;
        if (*p->s == '_') p->s++;
        snprintf(text, cap, "{unnamed}");
    } else if (p->s[0] == 'U' && p->s[1] == 'l') { /* closure type: Ul <lambda-sig> E [<n>] _ */
        p->s += 2;
        while (!p->bad && *p->s && *p->s != 'E') { type_desc skip; type(p, &skip); }
        if (*p->s == 'E') p->s++;
        while (*p->s && *p->s != '_') p->s++;
        if (*p->s == '_') p->s++;
        snprintf(text, cap, "{lambda}");
    } else {
        fail(p);
    }
}

/* <nested-name> ::= N [<CV-qualifiers>] <prefix> <unqualified-name> E, with template args. */
static void nested_name(parser *p, type_desc *out, bool *is_template) {
    p->s++; /* N */
    while (*p->s == 'r' || *p->s == 'V' || *p->s == 'K' || *p->s == 'R' || *p->s == 'O') p->s++;
    type_desc cur = {.kind = MANGLE_AGGREGATE};
    bool first = true;
    *is_template = false;
    while (!p->bad && *p->s && *p->s != 'E') {
        if (*p->s == 'I') {
            template_args(p, &cur);
            *is_template = true;
        } else if (*p->s == 'S' && first) {
            substitution(p, &cur);
            first = false;
            continue; /* a substitution is not itself a new candidate */
        } else if (*p->s == 'T' && first) {
            type(p, &cur);
            first = false;
            continue;
        } else {
            char part[MANGLE_TYPE_TEXT];
            unqualified_name(p, part, sizeof part);
            if (p->bad) return;
            if (first) {
                cur.text[0] = '\0';
            } else {
                append(cur.text, "::");
            }
            append(cur.text, part);
            *is_template = false;
        }
        first = false;
        if (*p->s != 'E') add_sub(p, &cur); /* every prefix but the whole name is a candidate */
    }
    if (*p->s != 'E') { fail(p); return; }
    p->s++;
    cur.kind = MANGLE_AGGREGATE;
    cur.size = 0;
    *out = cur;
}

/* <name>: nested, unscoped (with St), or an unscoped template name with its arguments. */
static void name(parser *p, type_desc *out, bool *is_template) {
    *is_template = false;
    memset(out, 0, sizeof *out);
    out->kind = MANGLE_AGGREGATE;
    if (*p->s == 'N') {
        nested_name(p, out, is_template);
        return;
    }
    if (*p->s == 'Z') { fail(p); return; } /* local names: not needed for kernels */
    if (p->s[0] == 'S' && p->s[1] == 't') {
        p->s += 2;
        char part[MANGLE_TYPE_TEXT];
        unqualified_name(p, part, sizeof part);
        set_text(out, "std::", part);
    } else if (*p->s == 'S') {
        substitution(p, out);
    } else {
        unqualified_name(p, out->text, sizeof out->text);
    }
    if (*p->s == 'I') {
        add_sub(p, out); /* the template name is a candidate before its args */
        template_args(p, out);
        *is_template = true;
    }
}

static void pointer_to(type_desc *t, const type_desc *pointee, bool pointee_const, const char *sym) {
    t->kind = pointee_const ? MANGLE_CONST_POINTER : MANGLE_POINTER;
    t->size = 8;
    set_text(t, pointee->text, sym);
}

/* <type>. Every non-builtin type is a substitution candidate (added after it is parsed). */
static void type(parser *p, type_desc *out) {
    memset(out, 0, sizeof *out);
    if (p->bad || *p->s == '\0') { fail(p); return; }
    if (builtin(p, out)) return;
    char c = *p->s;
    if (c == 'K' || c == 'V' || c == 'r') { /* CV-qualified type */
        p->s++;
        type(p, out);
        if (c == 'K') append(out->text, " const");
        add_sub(p, out);
        return;
    }
    if (c == 'P' || c == 'R' || c == 'O') { /* pointer, lvalue or rvalue reference */
        p->s++;
        bool inner_const = (*p->s == 'K') || (*p->s == 'V' && p->s[1] == 'K') ||
                           (*p->s == 'r' && (p->s[1] == 'K' || p->s[2] == 'K'));
        type_desc inner;
        type(p, &inner);
        pointer_to(out, &inner, inner_const, c == 'P' ? "*" : "&");
        add_sub(p, out);
        return;
    }
    if (c == 'A') { /* array: A <dimension> _ <element type> (decays to a pointer in parameters) */
        p->s++;
        while (*p->s && *p->s != '_') p->s++;
        if (*p->s == '_') p->s++;
        type_desc elem;
        type(p, &elem);
        pointer_to(out, &elem, false, "[]");
        add_sub(p, out);
        return;
    }
    if (c == 'F') { /* function type: F [Y] <bare-function-type> [<ref-qualifier>] E */
        p->s++;
        if (*p->s == 'Y') p->s++;
        while (!p->bad && *p->s && *p->s != 'E') {
            if ((*p->s == 'R' || *p->s == 'O') && p->s[1] == 'E') { p->s++; continue; }
            type_desc skip;
            type(p, &skip);
        }
        if (*p->s == 'E') p->s++;
        out->kind = MANGLE_SCALAR;
        set_text(out, "function", "");
        add_sub(p, out);
        return;
    }
    if (c == 'D' && p->s[1] == 'v') { /* vector: Dv <count> _ <element type> */
        p->s += 2;
        long count = number(p);
        if (*p->s++ != '_') { fail(p); return; }
        type_desc elem;
        type(p, &elem);
        out->kind = MANGLE_SCALAR;
        out->size = (uint32_t)(count * elem.size);
        char dim[32];
        snprintf(dim, sizeof dim, " vector[%ld]", count);
        set_text(out, elem.text, dim);
        add_sub(p, out);
        return;
    }
    if (c == 'D' && p->s[1] == 'p') { /* pack expansion */
        p->s += 2;
        type(p, out);
        add_sub(p, out);
        return;
    }
    if (c == 'T') { /* template parameter: T_ or T<n>_ */
        p->s++;
        int idx = seq_id(p);
        if (p->bad || idx >= p->ntargs) { fail(p); return; }
        *out = p->targs[idx];
        add_sub(p, out);
        return;
    }
    if (c == 'S' && p->s[1] != 't') { /* substitution (St starts a name) */
        substitution(p, out);
        if (*p->s == 'I') { /* a substituted template name with arguments: a new type */
            template_args(p, out);
            out->kind = MANGLE_AGGREGATE;
            out->size = 0;
            add_sub(p, out);
        }
        return;
    }
    if (c == 'u') { /* vendor extended type */
        p->s++;
        source_name(p, out->text, sizeof out->text);
        out->kind = MANGLE_AGGREGATE;
        add_sub(p, out);
        return;
    }
    if (c == 'N' || c == 'S' || (c >= '0' && c <= '9') || c == 'Z') { /* class or enum type */
        bool is_template;
        name(p, out, &is_template);
        out->kind = MANGLE_AGGREGATE;
        out->size = 0;
        add_sub(p, out);
        return;
    }
    fail(p); /* pointers to members (M), decltype (Dt/DT), and the like */
}

int mangle_params(const char *mangled, mangle_param *out, int max) {
    if (mangled == NULL || strncmp(mangled, "_Z", 2) != 0) return -1;
    parser p = {.s = mangled + 2};
    type_desc fname;
    bool is_template;
    name(&p, &fname, &is_template);
    if (p.bad) return -1;
    p.targs_final = true;
    if (is_template) { /* a template function's signature starts with its return type */
        type_desc ret;
        type(&p, &ret);
        if (p.bad) return -1;
    }
    int n = 0;
    if (p.s[0] == 'v' && p.s[1] == '\0') return 0; /* f(void) */
    while (*p.s != '\0' && *p.s != '.') { /* ".clone"-style suffixes end the signature */
        type_desc t;
        type(&p, &t);
        if (p.bad) return -1;
        if (n < max) out[n] = t;
        n++;
    }
    return n;
}
