import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { ChatState, ChatStore } from "./chat-store.ts";

const ChatContext = createContext<ChatStore | undefined>(undefined);

export function ChatProvider({ store, children }: { store: ChatStore; children: ReactNode }) {
  return <ChatContext.Provider value={store}>{children}</ChatContext.Provider>;
}

/** Read a slice of the chat state; the component re-renders when that slice changes. */
export function useChat<T>(selector: (state: ChatState) => T): T {
  const store = useContext(ChatContext);
  if (!store) throw new Error("useChat needs a <ChatProvider> above it");
  return useStore(store, selector);
}

/** The store itself, for code that reads it outside rendering (key handlers). */
export function useChatStore(): ChatStore {
  const store = useContext(ChatContext);
  if (!store) throw new Error("useChatStore needs its provider above it");
  return store;
}
