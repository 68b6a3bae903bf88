import { z } from "zod";
import { ToolCallError } from "../errors/tool-call-error.ts";
import type { ToolDefinition } from "../tools/contract.ts";
import { TODO_STATUSES, type TodoItem } from "../tools/todo-list.ts";
import { defineBuiltin } from "./define-builtin.ts";

const DESCRIPTION = `Write this session's todo list; the person sees it live. Use it for work with several steps (skip trivial tasks): send the whole plan first, then update it as you go, at most one step in_progress, each marked completed as soon as it is done.

Each call replaces the whole list: send every item, in order. An empty list clears it.`;

/** Longest list and longest item the tool accepts: a plan, not a dump. */
const MAX_TODOS = 100;
const MAX_TODO_CHARS = 1000;

// Built when first needed (see defineBuiltin): listing the tool reads the bundle's catalog.
const schema = () =>
  z.strictObject({
    todos: z
      .array(
        z.strictObject({
          content: z
            .string()
            .min(1)
            .max(MAX_TODO_CHARS)
            .describe("The step, in a short imperative sentence."),
          status: z.enum(TODO_STATUSES),
        }),
      )
      .max(MAX_TODOS),
  });

export interface TodoData {
  todos: TodoItem[];
}

/** Normalise and check a list the schema accepted: no blank steps, at most one in progress. */
function checkedList(todos: readonly TodoItem[]): TodoItem[] {
  const list = todos.map((t) => ({ content: t.content.trim(), status: t.status }));
  const blank = list.findIndex((t) => t.content === "");
  if (blank >= 0) {
    throw new ToolCallError(
      `todos[${blank}] has blank content. Describe each step in a few words, or leave the blank item out.`,
    );
  }
  const active = list.flatMap((t, i) => (t.status === "in_progress" ? [i] : []));
  if (active.length > 1) {
    throw new ToolCallError(
      `${active.length} items are in_progress (${active.map((i) => `todos[${i}]`).join(", ")}); at most one may be. Keep the one you are working on now in_progress, mark the others pending or completed, and send the whole list again.`,
    );
  }
  return list;
}

/**
 * The todo tool: it replaces the calling session's list (`runtime.session.todos`, which the
 * engine persists and announces as `TodosChanged`). It touches no files, so nothing is gated.
 */
export function todoTool(): ToolDefinition<z.output<ReturnType<typeof schema>>, TodoData> {
  return defineBuiltin({
    id: "todo",
    description: DESCRIPTION,
    schema,
    requires: {},
    readOnly: false,
    gated: false,
    kind: "think",
    timeoutMs: 10_000,
    async execute(args, runtime): Promise<TodoData> {
      const todos = checkedList(args.todos);
      runtime.session.todos.replace(todos);
      return { todos };
    },
  });
}
