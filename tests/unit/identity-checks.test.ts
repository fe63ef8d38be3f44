import { describe, expect, it } from "vitest";
import { identityProblems, IDENTITY_MESSAGES, maskDocumentNumber, maskName, residentCheckDigit, residentIdProblem } from "~/schemas/identity";
import { IdentityDecryptError, openIdentityValue, parseIdentityKey, sealIdentityValue, sealedKeyId } from "~/server/identity/identity-crypto.server";

/** 实名认证's checks of a 居民身份证号 (GB 11643) and its encryption at rest (decision 204). */

const TODAY = "2026-11-28";
/** A number with its right check digit for a region and a birth date. */
function residentId(region: string, birth: string, sequence = "123"): string {
  const first17 = `${region}${birth}${sequence}`;
  return first17 + residentCheckDigit(first17);
}

describe("居民身份证号", () => {
  it("accepts valid numbers, the X check digit included", () => {
    // GB 11643's own example, whose check digit is X.
    expect(residentCheckDigit("11010519491231002")).toBe("X");
    expect(residentIdProblem("11010519491231002X", TODAY)).toBeNull();
    expect(residentIdProblem("440308199901010012".slice(0, 17) + residentCheckDigit("44030819990101001"), TODAY)).toBeNull();
    // Sixteen today exactly.
    expect(residentIdProblem(residentId("310104", "20101128"), TODAY)).toBeNull();
  });

  it("refuses a wrong check digit, a future birth date, 2月30日, an author under 16, a bad shape or region", () => {
    expect(residentIdProblem("110105194912310021", TODAY)).toBe(IDENTITY_MESSAGES.residentCheckDigit);
    expect(residentIdProblem(residentId("110105", "20270101"), TODAY)).toBe(IDENTITY_MESSAGES.birthFuture);
    expect(residentIdProblem(residentId("110105", "20000230"), TODAY)).toBe(IDENTITY_MESSAGES.birthInvalid);
    expect(residentIdProblem(residentId("110105", "20101129"), TODAY)).toBe(IDENTITY_MESSAGES.tooYoung);
    expect(residentIdProblem("11010519491231002", TODAY)).toBe(IDENTITY_MESSAGES.residentFormat);
    expect(residentIdProblem("1101051949123100XX", TODAY)).toBe(IDENTITY_MESSAGES.residentFormat);
    expect(residentIdProblem(residentId("990105", "19900101"), TODAY)).toBe(IDENTITY_MESSAGES.residentRegion);
    expect(residentIdProblem(residentId("110000", "19900101"), TODAY)).toBe(IDENTITY_MESSAGES.residentRegion);
  });

  it("checks a passport's birth date and every field by name", () => {
    expect(identityProblems({ documentType: "passport", legalName: "Li Lei", documentNumber: "E12345678", birthDate: "2015-01-01" }, TODAY)).toEqual({
      birthDate: IDENTITY_MESSAGES.tooYoung,
    });
    expect(identityProblems({ documentType: "passport", legalName: "Li Lei", documentNumber: "E12345678", birthDate: "" }, TODAY)).toEqual({
      birthDate: IDENTITY_MESSAGES.birthRequired,
    });
    expect(identityProblems({ documentType: "card", legalName: "张3", documentNumber: "", birthDate: "" }, TODAY)).toEqual({
      documentType: IDENTITY_MESSAGES.documentType,
      legalName: IDENTITY_MESSAGES.nameFormat,
      documentNumber: IDENTITY_MESSAGES.numberRequired,
    });
  });

  it("masks a name and a number", () => {
    expect(maskName("张三")).toBe("张*");
    expect(maskName("欧阳娜娜")).toBe("欧***");
    expect(maskDocumentNumber("11010519491231002X")).toBe("1101**********002X");
    expect(maskDocumentNumber("E12345678")).toBe("E1*****78");
  });
});

describe("encryption at rest", () => {
  const key = parseIdentityKey("aW5rc3RvbmUtdGVzdC1pZGVudGl0eS1rZXktMzJieXQ=");
  const other = parseIdentityKey("ab".repeat(32));

  it("round-trips, with a fresh IV each time and the key's id in the value", () => {
    const a = sealIdentityValue("张三", key, "user-1:name");
    const b = sealIdentityValue("张三", key, "user-1:name");
    expect(a).not.toBe(b);
    expect(sealedKeyId(a)).toBe(key.id);
    expect(a).not.toContain("张三");
    expect(openIdentityValue(a, [key], "user-1:name")).toBe("张三");
  });

  it("refuses a tampered value, a wrong key, another row's context", () => {
    const sealed = sealIdentityValue("11010519491231002X", key, "user-1:number");
    const parts = sealed.split(".");
    const body = Buffer.from(parts[4], "base64url");
    body[0] ^= 1;
    const tampered = [...parts.slice(0, 4), body.toString("base64url")].join(".");
    expect(() => openIdentityValue(tampered, [key], "user-1:number")).toThrow(IdentityDecryptError);
    expect(() => openIdentityValue(sealed, [other], "user-1:number")).toThrow(IdentityDecryptError);
    // The same bytes under another key id: the tag does not verify.
    const relabelled = [parts[0], other.id, ...parts.slice(2)].join(".");
    expect(() => openIdentityValue(relabelled, [other], "user-1:number")).toThrow(IdentityDecryptError);
    expect(() => openIdentityValue(sealed, [key], "user-2:number")).toThrow(IdentityDecryptError);
    expect(() => openIdentityValue("garbage", [key], "user-1:number")).toThrow(IdentityDecryptError);
  });

  it("takes a key as 64 hex digits or base64 of 32 bytes, nothing else", () => {
    expect(parseIdentityKey("ab".repeat(32)).key.length).toBe(32);
    expect(() => parseIdentityKey("short")).toThrow(/32 bytes/);
    expect(() => parseIdentityKey(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
  });
});
