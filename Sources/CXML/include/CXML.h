#ifndef CHIME_CXML_H
#define CHIME_CXML_H
// libxml2 behind a few functions of Chime's own: its headers live under /usr/include/libxml2,
// which no importer of this module then needs on its path.
//
// libxml2 is opened with dlopen on first use, as CICal opens libical: a chimed that follows
// no CalDAV calendar never loads it. A parse reads a whole answer into a document, which
// the caller walks element by element, copies what it needs, and frees.

#include <stddef.h>

/// A parsed document; freed with chime_xml_free.
typedef struct chime_xml_document chime_xml_document;
/// An element of a document; valid while its document is.
typedef struct chime_xml_element chime_xml_element;
/// An attribute of an element; valid while its document is.
typedef struct chime_xml_attribute chime_xml_attribute;

/// Why a parse gave no document.
enum chime_xml_refusal {
    /// Not well-formed XML, or not well-formed XML namespaces: `message` and `line` say where.
    CHIME_XML_NOT_XML = 1,
    /// The document declares entities (a DTD with <!ENTITY>); none was expanded or fetched.
    CHIME_XML_ENTITIES = 2,
    /// Elements nest deeper than the caller's limit.
    CHIME_XML_TOO_DEEP = 3,
    /// libxml2.so.2 could not be opened, or lacks a function: `message` is why.
    CHIME_XML_UNAVAILABLE = 4,
    /// More bytes than libxml2 takes in one buffer (2 GiB).
    CHIME_XML_TOO_LARGE = 5,
};

/// What went wrong in a parse that gave no document.
typedef struct chime_xml_failure {
    /// A chime_xml_refusal.
    int refusal;
    /// The line of the first error, or 0 when none applies.
    int line;
    /// libxml2's words for the first error (one line, without its newline), or "".
    char message[240];
} chime_xml_failure;

/// Parses `length` bytes; the document, or NULL with `failure` filled in. Elements deeper than
/// `max_depth` refuse the document. Thread-safe; nothing is written to stderr.
chime_xml_document *chime_xml_parse(const void *bytes, size_t length, int max_depth, chime_xml_failure *failure);
/// Frees a document and everything reached from it.
void chime_xml_free(chime_xml_document *document);

/// The root element of a document.
const chime_xml_element *chime_xml_root(const chime_xml_document *document);
/// The first child of an element that is an element, or NULL.
const chime_xml_element *chime_xml_first_child(const chime_xml_element *element);
/// The next sibling of an element that is an element, or NULL.
const chime_xml_element *chime_xml_next_sibling(const chime_xml_element *element);
/// An element's local name, without its prefix (UTF-8).
const char *chime_xml_local_name(const chime_xml_element *element);
/// An element's namespace URI, or NULL when it has none.
const char *chime_xml_namespace(const chime_xml_element *element);
/// The element's own character data (text and CDATA children, not its descendants'),
/// joined, in a buffer the caller frees with chime_xml_free_text; NULL when it has none.
char *chime_xml_text(const chime_xml_element *element);

/// An element's first attribute (namespace declarations are not attributes), or NULL.
const chime_xml_attribute *chime_xml_first_attribute(const chime_xml_element *element);
/// The next attribute of the same element, or NULL.
const chime_xml_attribute *chime_xml_next_attribute(const chime_xml_attribute *attribute);
/// An attribute's local name.
const char *chime_xml_attribute_name(const chime_xml_attribute *attribute);
/// An attribute's namespace URI, or NULL (unprefixed attributes have none).
const char *chime_xml_attribute_namespace(const chime_xml_attribute *attribute);
/// An attribute's value, in a buffer the caller frees with chime_xml_free_text; never NULL
/// unless memory ran out.
char *chime_xml_attribute_value(const chime_xml_attribute *attribute);

/// Frees what chime_xml_text or chime_xml_attribute_value returned.
void chime_xml_free_text(char *text);

#endif
