import { useChat } from "../state/chat-context.tsx";
import { ContextMeter } from "./context-meter.tsx";
import { ModelPicker } from "./model-picker.tsx";

/** The chat header's controls: the model picker, how full the context is, and the agent. */
export function ChatPickers() {
  const agents = useChat((s) => s.agents);
  const agent = useChat((s) => s.agent);
  const setAgent = useChat((s) => s.setAgent);
  const running = useChat((s) => s.running);
  const notices = useChat((s) => s.agentNotices);

  return (
    <div className="chat-pickers">
      <ModelPicker />
      <ContextMeter />
      <label className="agent-picker">
        <span className="visually-hidden">Agent</span>
        <select
          aria-label="Agent"
          value={agent}
          disabled={running}
          onChange={(event) => setAgent(event.target.value)}
        >
          {agents.length === 0 ? <option value="default">default</option> : null}
          {agents.map((a) => (
            <option key={a.id} value={a.id} title={a.description}>
              {a.id === "default" ? "Default agent" : a.id}
            </option>
          ))}
        </select>
      </label>
      {notices.length > 0 ? (
        <ul className="chat-notices" aria-label="Agent notices">
          {notices.map((notice, index) => (
            <li key={index} className="notice">
              {notice}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
