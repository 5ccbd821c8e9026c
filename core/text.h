/*
 * text.h - what a character of recorded text may be, and how text from
 * outside is shown.
 *
 * A record holds printable text only: no control character of C0
 * (U+0000-U+001F), DEL (U+007F) or C1 (U+0080-U+009F).  A note or a
 * reason is read on an arbiter's terminal and in every client; an escape
 * sequence in it would drive that terminal (clear the screen, retitle the
 * window, rewrite what was printed before it).  New events and claims are
 * refused with one; what older records hold is shown through
 * arb_text_clean().
 */
#ifndef ARB_TEXT_H
#define ARB_TEXT_H

#include <stddef.h>

#include "core/buf.h"

/* The length of the well-formed UTF-8 sequence at s[0..n), or 0 when the
 * byte at s starts none (or n is 0). */
size_t arb_text_seq(const char *s, size_t n);

/* The length of the longest prefix of s[0..n) that is well-formed UTF-8:
 * n when all of it is. */
size_t arb_text_utf8_len(const char *s, size_t n);

/* The first control character (C0, DEL or C1) of the UTF-8 text s[0..n),
 * as its code point, or -1 when there is none; *at (when not NULL) gets
 * its byte offset. */
int arb_text_control(const char *s, size_t n, size_t *at);

/* Appends s[0..n) to out with every control character and every byte that
 * starts no well-formed UTF-8 sequence written as \xNN (each byte), so
 * that what is appended is UTF-8 and cannot drive a terminal.  With
 * keep_lines, '\n' and '\t' are kept as they are (a listing of several
 * lines). */
void arb_text_clean(arb_buf_t *out, const char *s, size_t n, int keep_lines);

/* One line of a text file read by a person's tool (a transcript, a
 * pairing list): well-formed UTF-8, and no control character but (with
 * blanks) a tab or a CR.  0, or ARB_EINVAL with why given what is wrong
 * and its column ("a control character (U+001B) in column 9"). */
int arb_text_line_check(const char *s, size_t n, int blanks, arb_buf_t *why);

/* arb_text_clean of the C string s into dst[0..cap), cut (at a character)
 * to fit: a message of a fixed size (a verdict's). */
void arb_text_clean_into(char *dst, size_t cap, const char *s);

#endif
