import { EventEmitter } from "node:events";

export interface Todo {
  id: string;
  title: string;
  done: boolean;
  tags: string[];
}

type Listener = (todos: readonly Todo[]) => void;

export class TodoStore extends EventEmitter {
  private todos: Todo[] = [];
  private nextId = 1;

  add(title: string, tags: string[] = []): Todo {
    const trimmed = title.trim();
    if (trimmed === "") {
      throw new Error("a todo needs a title");
    }
    const todo: Todo = { id: `t${this.nextId++}`, title: trimmed, done: false, tags };
    this.todos.push(todo);
    this.emit("change", this.todos);
    return todo;
  }

  toggle(id: string): void {
    const todo = this.todos.find((t) => t.id === id);
    if (!todo) {
      throw new Error(`no todo ${id}`);
    }
    todo.done = !todo.done;
    this.emit("change", this.todos);
  }

  byTag(tag: string): Todo[] {
    return this.todos.filter((t) => {
      if (t.done) {
        return false;  // finished ones are hidden
      }
      return t.tags.includes(tag);
    });
  }

  subscribe(listener: Listener): () => void {
    this.on("change", listener);
    return () => {
      this.off("change", listener);
    };
  }
}
