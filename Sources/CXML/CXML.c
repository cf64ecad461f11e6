#include "CXML.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

// The libxml2 functions Chime calls, looked up once in libxml2.so.2. They are kept in a table
// under names of Chime's own rather than defined under libxml2's: a library that links
// libxml2 itself must never bind to a definition in chimed.
//
// What a parse allows, and why (every answer comes from a server, which may be hostile or
// broken):
// - The caller refuses a body above its byte limit (64 MiB unless told otherwise) before it
//   gets here, which bounds the document built from it; libxml2's own limits stay on (no
//   XML_PARSE_HUGE).
// - No entity is ever expanded or fetched: no XML_PARSE_NOENT, no XML_PARSE_DTDLOAD or
//   DTDATTR or DTDVALID, and XML_PARSE_NONET. A document that declares any entity (general,
//   parameter or unparsed) is refused at the declaration, before its first reference:
//   billion laughs and external entities (XXE) end there. WebDAV answers never declare any.
// - Elements nest at most as deep as the caller says (100 for WebDAV, whose deepest answer
//   is about 8 levels); libxml2's own limit, 256, is never reached.
// - libxml2's messages go to the parse's own record on the calling thread, never to stderr:
//   libxml2 keeps its error handlers per thread, and each parse sets them and puts back
//   what was there.

static struct {
    __typeof__(xmlInitParser) *initParser;
    __typeof__(xmlCreateMemoryParserCtxt) *createMemoryParserCtxt;
    __typeof__(xmlCtxtUseOptions) *ctxtUseOptions;
    __typeof__(xmlParseDocument) *parseDocument;
    __typeof__(xmlStopParser) *stopParser;
    __typeof__(xmlFreeParserCtxt) *freeParserCtxt;
    __typeof__(xmlFreeDoc) *freeDoc;
    __typeof__(__xmlStructuredError) *structuredError;
    __typeof__(__xmlStructuredErrorContext) *structuredErrorContext;
    __typeof__(__xmlGenericError) *genericError;
    __typeof__(__xmlGenericErrorContext) *genericErrorContext;
} xml;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[200];

static void load(void)
{
    void *handle = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        strncpy(load_error, reason ? reason : "libxml2.so.2 could not be opened", sizeof load_error - 1);
        return;
    }
#define LOAD(field, name) \
    if ((xml.field = (__typeof__(name) *)dlsym(handle, #name)) == NULL) { \
        strncpy(load_error, "libxml2.so.2 has no " #name, sizeof load_error - 1); \
        return; \
    }
    LOAD(initParser, xmlInitParser)
    LOAD(createMemoryParserCtxt, xmlCreateMemoryParserCtxt)
    LOAD(ctxtUseOptions, xmlCtxtUseOptions)
    LOAD(parseDocument, xmlParseDocument)
    LOAD(stopParser, xmlStopParser)
    LOAD(freeParserCtxt, xmlFreeParserCtxt)
    LOAD(freeDoc, xmlFreeDoc)
    LOAD(structuredError, __xmlStructuredError)
    LOAD(structuredErrorContext, __xmlStructuredErrorContext)
    LOAD(genericError, __xmlGenericError)
    LOAD(genericErrorContext, __xmlGenericErrorContext)
#undef LOAD
    // libxml2 asks for this once, before parses on several threads.
    xml.initParser();
    loaded = 1;
}

// MARK: - One parse

// What one parse has seen; the parser context's _private points to it.
struct parse {
    int max_depth;
    int depth;
    int refusal;
    int error_line;
    char error_message[sizeof ((chime_xml_failure *)0)->message];
    startElementNsSAX2Func start;
    endElementNsSAX2Func end;
};

static void keep_first_error(void *data, xmlErrorPtr error)
{
    struct parse *parse = data;
    // Warnings (a relative namespace URI, say) are no reason to refuse an answer.
    if (error == NULL || error->level < XML_ERR_ERROR || parse->error_message[0] != '\0') return;
    parse->error_line = error->line;
    const char *message = error->message ? error->message : "not well-formed";
    size_t length = strnlen(message, sizeof parse->error_message - 1);
    memcpy(parse->error_message, message, length);
    parse->error_message[length] = '\0';
    for (char *c = parse->error_message; *c; c++) if (*c == '\n' || *c == '\r' || *c == '\t') *c = ' ';
    while (length > 0 && parse->error_message[length - 1] == ' ') parse->error_message[--length] = '\0';
}

static void ignore_message(void *context, const char *message, ...)
{
    (void)context;
    (void)message;
}

static void refuse_entity(void *context, const xmlChar *name, int type, const xmlChar *public_id,
                          const xmlChar *system_id, xmlChar *content)
{
    (void)name, (void)type, (void)public_id, (void)system_id, (void)content;
    xmlParserCtxtPtr parser = context;
    ((struct parse *)parser->_private)->refusal = CHIME_XML_ENTITIES;
    xml.stopParser(parser);
}

static void refuse_unparsed_entity(void *context, const xmlChar *name, const xmlChar *public_id,
                                   const xmlChar *system_id, const xmlChar *notation)
{
    (void)name, (void)public_id, (void)system_id, (void)notation;
    xmlParserCtxtPtr parser = context;
    ((struct parse *)parser->_private)->refusal = CHIME_XML_ENTITIES;
    xml.stopParser(parser);
}

static void start_element(void *context, const xmlChar *local_name, const xmlChar *prefix, const xmlChar *uri,
                          int namespace_count, const xmlChar **namespaces, int attribute_count,
                          int defaulted_count, const xmlChar **attributes)
{
    xmlParserCtxtPtr parser = context;
    struct parse *parse = parser->_private;
    if (++parse->depth > parse->max_depth) {
        parse->refusal = CHIME_XML_TOO_DEEP;
        xml.stopParser(parser);
        return;
    }
    parse->start(context, local_name, prefix, uri, namespace_count, namespaces, attribute_count, defaulted_count, attributes);
}

static void end_element(void *context, const xmlChar *local_name, const xmlChar *prefix, const xmlChar *uri)
{
    xmlParserCtxtPtr parser = context;
    struct parse *parse = parser->_private;
    parse->depth--;
    parse->end(context, local_name, prefix, uri);
}

static void fail(chime_xml_failure *failure, int refusal, int line, const char *message)
{
    failure->refusal = refusal;
    failure->line = line;
    strncpy(failure->message, message, sizeof failure->message - 1);
    failure->message[sizeof failure->message - 1] = '\0';
}

static const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | XML_PARSE_COMPACT;

chime_xml_document *chime_xml_parse(const void *bytes, size_t length, int max_depth, chime_xml_failure *failure)
{
    memset(failure, 0, sizeof *failure);
    pthread_once(&load_once, load);
    if (!loaded) {
        fail(failure, CHIME_XML_UNAVAILABLE, 0, load_error);
        return NULL;
    }
    if (length > INT_MAX) {
        fail(failure, CHIME_XML_TOO_LARGE, 0, "");
        return NULL;
    }
    if (length == 0) {
        fail(failure, CHIME_XML_NOT_XML, 1, "Document is empty");
        return NULL;
    }

    struct parse parse = { .max_depth = max_depth };
    xmlStructuredErrorFunc *structured = xml.structuredError();
    void **structured_context = xml.structuredErrorContext();
    xmlGenericErrorFunc *generic = xml.genericError();
    void **generic_context = xml.genericErrorContext();
    xmlStructuredErrorFunc saved_structured = *structured;
    void *saved_structured_context = *structured_context;
    xmlGenericErrorFunc saved_generic = *generic;
    void *saved_generic_context = *generic_context;
    *structured = keep_first_error;
    *structured_context = &parse;
    *generic = ignore_message;
    *generic_context = NULL;

    xmlDocPtr document = NULL;
    int well_formed = 0;
    xmlParserCtxtPtr parser = xml.createMemoryParserCtxt(bytes, (int)length);
    if (parser != NULL) {
        xml.ctxtUseOptions(parser, options);
        parser->_private = &parse;
        // The context has a SAX handler of its own (a copy of the defaults): these hooks
        // belong to this parse alone.
        parse.start = parser->sax->startElementNs;
        parse.end = parser->sax->endElementNs;
        parser->sax->startElementNs = start_element;
        parser->sax->endElementNs = end_element;
        parser->sax->entityDecl = refuse_entity;
        parser->sax->unparsedEntityDecl = refuse_unparsed_entity;
        xml.parseDocument(parser);
        document = parser->myDoc;
        parser->myDoc = NULL;
        well_formed = parser->wellFormed && parser->nsWellFormed;
        xml.freeParserCtxt(parser);
    }

    *structured = saved_structured;
    *structured_context = saved_structured_context;
    *generic = saved_generic;
    *generic_context = saved_generic_context;

    if (document != NULL && well_formed && parse.refusal == 0 && parse.error_message[0] == '\0'
        && chime_xml_root((chime_xml_document *)document) != NULL) {
        return (chime_xml_document *)document;
    }
    if (document != NULL) xml.freeDoc(document);
    if (parser == NULL) fail(failure, CHIME_XML_NOT_XML, 0, "libxml2 could not start a parse (out of memory)");
    else if (parse.refusal != 0) fail(failure, parse.refusal, parse.error_line, "");
    else if (parse.error_message[0] != '\0') fail(failure, CHIME_XML_NOT_XML, parse.error_line, parse.error_message);
    else fail(failure, CHIME_XML_NOT_XML, 0, "no root element");
    return NULL;
}

void chime_xml_free(chime_xml_document *document)
{
    if (document != NULL) xml.freeDoc((xmlDocPtr)document);
}

// MARK: - Walking a document

static const chime_xml_element *element_from(xmlNodePtr node)
{
    while (node != NULL && node->type != XML_ELEMENT_NODE) node = node->next;
    return (const chime_xml_element *)node;
}

const chime_xml_element *chime_xml_root(const chime_xml_document *document)
{
    return element_from(((xmlDocPtr)document)->children);
}

const chime_xml_element *chime_xml_first_child(const chime_xml_element *element)
{
    return element_from(((xmlNodePtr)element)->children);
}

const chime_xml_element *chime_xml_next_sibling(const chime_xml_element *element)
{
    return element_from(((xmlNodePtr)element)->next);
}

const char *chime_xml_local_name(const chime_xml_element *element)
{
    return (const char *)((xmlNodePtr)element)->name;
}

const char *chime_xml_namespace(const chime_xml_element *element)
{
    xmlNsPtr ns = ((xmlNodePtr)element)->ns;
    return ns != NULL ? (const char *)ns->href : NULL;
}

// The text and CDATA nodes among `node` and its next siblings, joined; NULL when there are none.
static char *join_text(xmlNodePtr first)
{
    size_t length = 0;
    for (xmlNodePtr node = first; node != NULL; node = node->next) {
        if ((node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) && node->content != NULL) {
            length += strlen((const char *)node->content);
        }
    }
    if (length == 0) return NULL;
    char *text = malloc(length + 1);
    if (text == NULL) return NULL;
    char *end = text;
    for (xmlNodePtr node = first; node != NULL; node = node->next) {
        if ((node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) && node->content != NULL) {
            size_t part = strlen((const char *)node->content);
            memcpy(end, node->content, part);
            end += part;
        }
    }
    *end = '\0';
    return text;
}

char *chime_xml_text(const chime_xml_element *element)
{
    return join_text(((xmlNodePtr)element)->children);
}

const chime_xml_attribute *chime_xml_first_attribute(const chime_xml_element *element)
{
    return (const chime_xml_attribute *)((xmlNodePtr)element)->properties;
}

const chime_xml_attribute *chime_xml_next_attribute(const chime_xml_attribute *attribute)
{
    return (const chime_xml_attribute *)((xmlAttrPtr)attribute)->next;
}

const char *chime_xml_attribute_name(const chime_xml_attribute *attribute)
{
    return (const char *)((xmlAttrPtr)attribute)->name;
}

const char *chime_xml_attribute_namespace(const chime_xml_attribute *attribute)
{
    xmlNsPtr ns = ((xmlAttrPtr)attribute)->ns;
    return ns != NULL ? (const char *)ns->href : NULL;
}

char *chime_xml_attribute_value(const chime_xml_attribute *attribute)
{
    char *value = join_text(((xmlAttrPtr)attribute)->children);
    return value != NULL ? value : calloc(1, 1);
}

void chime_xml_free_text(char *text)
{
    free(text);
}
