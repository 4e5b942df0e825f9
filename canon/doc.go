// Package canon reads JSON strictly and writes it canonically.
//
// Parse accepts only RFC 8259 JSON text: valid UTF-8, no duplicate object
// keys (unless asked otherwise), no trailing data, no extensions. The
// resulting Value keeps number lexemes exactly as written and object members
// in source order, so that evidence about an input can be reported without
// loss.
//
// A Profile writes a Value canonically: RFC 8785 (JCS) and the variants that
// canonicalisers found in the wild actually implement. The writer never
// emits whitespace, sorts object members by the profile's key order, escapes
// strings minimally and formats numbers by the profile's number rule.
//
// Strings are Go strings, that is bytes. A JSON escape of a lone UTF-16
// surrogate (such as "\ud800") cannot be held as UTF-8, so Parse stores it
// in its generalised UTF-8 (WTF-8) form: the three bytes ED A0..BF 80..BF.
// Raw bytes of that form in the input are still invalid UTF-8 and rejected.
//
// Every Parse error is a *SyntaxError and every writer error a *ValueError;
// both unwrap to one of the package's sentinel errors, for use with
// errors.Is.
package canon
