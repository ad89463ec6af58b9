'use client';

import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { html } from '@codemirror/lang-html';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState, RangeSetBuilder, StateEffect, StateField, type Extension } from '@codemirror/state';
import { tags } from '@lezer/highlight';
import { Decoration, EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers, type DecorationSet } from '@codemirror/view';
import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';

/** Lines with a problem, as the validator reported them (1-based). */
type EditorProblem = { line: number; column: number; message: string };

const setProblems = StateEffect.define<EditorProblem[]>();

/** Marks each line with a problem, with the message as its title (hover) for the reader. */
const problemLines = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, tr) {
    let next = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setProblems)) continue;
      const builder = new RangeSetBuilder<Decoration>();
      const byLine = new Map<number, string[]>();
      for (const p of effect.value) {
        const line = Math.min(Math.max(1, p.line), tr.state.doc.lines);
        byLine.set(line, [...(byLine.get(line) ?? []), p.message]);
      }
      for (const line of [...byLine.keys()].sort((a, b) => a - b)) {
        const at = tr.state.doc.line(line).from;
        builder.add(at, at, Decoration.line({ attributes: { class: 'cm-problem-line', title: byLine.get(line)!.join('\n') } }));
      }
      next = builder.finish();
    }
    return next;
  },
  provide: (f) => EditorView.decorations.from(f),
});

// Colours are CSS variables (app/globals.css) so the editor follows the light or dark theme.
const theme = EditorView.theme({
  '&': {
    fontSize: '13px',
    border: '1px solid var(--code-border)',
    borderRadius: '6px',
    backgroundColor: 'var(--code-bg)',
    color: 'var(--code-fg)',
  },
  '&.cm-focused': { outline: '2px solid rgb(99 102 241)', outlineOffset: '1px' },
  '.cm-content': { caretColor: 'var(--code-caret)' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--code-caret)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--code-selection)' },
  '.cm-activeLine': { backgroundColor: 'var(--code-active-line)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', minHeight: '8rem', maxHeight: '32rem', overflow: 'auto' },
  '.cm-gutters': { backgroundColor: 'var(--code-gutter-bg)', color: 'var(--code-gutter-fg)', border: 'none' },
  '.cm-problem-line': { backgroundColor: 'var(--code-problem-bg)', boxShadow: 'inset 3px 0 0 rgb(220 38 38)' },
});

const highlight = HighlightStyle.define([
  { tag: [tags.tagName, tags.angleBracket], color: 'var(--code-tag)' },
  { tag: tags.attributeName, color: 'var(--code-attribute)' },
  { tag: [tags.string, tags.attributeValue], color: 'var(--code-string)' },
  { tag: tags.comment, color: 'var(--code-comment)', fontStyle: 'italic' },
  { tag: [tags.keyword, tags.processingInstruction, tags.documentMeta], color: 'var(--code-keyword)' },
]);

export type CodeEditorHandle = {
  /** Inserts text at the cursor (replacing the selection) and focuses the editor. */
  insert(text: string): void;
  /** Moves the cursor to a line and column (1-based) and focuses the editor. */
  goTo(line: number, column: number): void;
};

type Props = {
  value: string;
  onChange: (value: string) => void;
  /** `html` highlights MJML/HTML; `text` is plain. */
  language: 'html' | 'text';
  problems?: EditorProblem[];
  label: string;
  readOnly?: boolean;
  onFocus?: () => void;
};

/** A CodeMirror 6 editor with line numbers, highlighting and the validator's problems marked at their lines. */
export const CodeEditor = forwardRef<CodeEditorHandle, Props>(function CodeEditor(
  { value, onChange, language, problems = [], label, readOnly = false, onFocus },
  ref,
) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const callbacks = useRef({ onChange, onFocus });
  callbacks.current = { onChange, onFocus };

  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      history(),
      // Tab is left to the browser so keyboard users can move on from the editor.
      keymap.of([...defaultKeymap, ...historyKeymap]),
      drawSelection(),
      highlightActiveLine(),
      EditorView.lineWrapping,
      syntaxHighlighting(highlight),
      problemLines,
      theme,
      EditorState.readOnly.of(readOnly),
      EditorView.contentAttributes.of({ 'aria-label': label, 'aria-multiline': 'true', role: 'textbox' }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) callbacks.current.onChange(u.state.doc.toString());
        if (u.focusChanged && u.view.hasFocus) callbacks.current.onFocus?.();
      }),
    ];
    if (language === 'html') extensions.push(html());
    const v = new EditorView({ parent: host.current!, state: EditorState.create({ doc: value, extensions }) });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
    // The editor is created once per language; value changes flow in below.
  }, [language, readOnly, label]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setProblems.of(problems) });
  }, [problems]);

  useImperativeHandle(ref, () => ({
    insert(text) {
      const v = view.current;
      if (!v) return;
      const { from, to } = v.state.selection.main;
      v.dispatch({ changes: { from, to, insert: text }, selection: { anchor: from + text.length } });
      v.focus();
    },
    goTo(line, column) {
      const v = view.current;
      if (!v) return;
      const l = v.state.doc.line(Math.min(Math.max(1, line), v.state.doc.lines));
      const at = Math.min(l.from + Math.max(0, column - 1), l.to);
      v.dispatch({ selection: { anchor: at }, scrollIntoView: true });
      v.focus();
    },
  }));

  return <div ref={host} className="min-w-0" />;
});
