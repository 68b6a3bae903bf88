/**
 * A run's text as one string: the pieces a step streamed run on, and the texts of different
 * steps are set apart by a blank line (a step's text usually ends without a newline, so joined
 * as they came, "Reading a.txt." and "It holds 42." would read "Reading a.txt.It holds 42.").
 */
export class StepText {
  private readonly steps: string[] = [];
  private lastStep: number | undefined;

  add(step: number, text: string): void {
    if (text === "") return;
    if (step === this.lastStep && this.steps.length > 0) this.steps[this.steps.length - 1] += text;
    else this.steps.push(text);
    this.lastStep = step;
  }

  toString(): string {
    return this.steps.join("\n\n");
  }
}
